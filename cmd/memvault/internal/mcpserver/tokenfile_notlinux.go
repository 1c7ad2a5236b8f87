//go:build !linux

package mcpserver

import (
	"os"
	"time"
)

func statChangeTime(os.FileInfo) (time.Time, bool) { return time.Time{}, false }
