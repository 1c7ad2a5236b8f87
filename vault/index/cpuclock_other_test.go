//go:build !linux

package index

import "time"

// threadCPU is unavailable here; CPU metrics then read 0.
func threadCPU() time.Duration { return 0 }

// processCPU is unavailable here; CPU metrics then read 0.
func processCPU() time.Duration { return 0 }
