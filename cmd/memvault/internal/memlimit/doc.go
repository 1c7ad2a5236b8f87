// Package memlimit sets the soft memory limit of a memvault process, so
// that a large vault's load does not let the heap grow to twice what it
// keeps (the Go runtime's default), and lifts it for a vault whose live
// heap alone would keep the collector running.
package memlimit
