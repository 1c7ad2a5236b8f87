// Package buildinfo names the version of a build of memvault from what the
// linker and the go command recorded in it.
package buildinfo
