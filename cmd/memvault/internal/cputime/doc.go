// Package cputime reads the CPU time this process has used, for
// benchmarks that report a cost that does not depend on how busy a shared
// machine is (wall time on a loaded CI machine does). Only tests import
// it.
package cputime
