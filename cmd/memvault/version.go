package main

import (
	"runtime/debug"

	"github.com/memvault/memvault/cmd/memvault/internal/buildinfo"
)

// version is set at link time by whoever builds memvault without module
// or VCS information to stamp (a source tarball, -buildvcs=false):
//
//	go build -ldflags "-X main.version=v1.2.3" ./cmd/memvault
//
// Only the linker writes it; the program reads it once, in NewMain.
var version string

// currentVersion is this binary's version, for --version and the MCP
// server's serverInfo.version.
func currentVersion() string {
	info, ok := debug.ReadBuildInfo()
	return buildinfo.Version(version, info, ok)
}
