//go:build !linux

package main

import "time"

// childrenCPU is not measured outside Linux.
func childrenCPU(string) (time.Duration, bool) { return 0, false }

// pidCPU is not measured outside Linux.
func pidCPU(int) (time.Duration, bool) { return 0, false }
