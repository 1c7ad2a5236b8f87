//go:build !unix

package main

import (
	"os"
	"time"
)

// processCPU is not measured on this platform.
func processCPU() time.Duration { return 0 }

// maxRSSKB is not measured on this platform.
func maxRSSKB(*os.ProcessState) int64 { return 0 }
