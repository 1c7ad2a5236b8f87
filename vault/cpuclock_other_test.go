//go:build !linux

package vault

import "time"

// processCPU is unavailable here; CPU metrics then read 0.
func processCPU() time.Duration { return 0 }

// threadCPU is not measured on this system.
func threadCPU() time.Duration { return 0 }
