//go:build linux && !amd64 && !arm64

package store

// sysFstatat is -1 where the stat structure fstatat fills differs from
// syscall.Stat_t: StatKey stats by full path there.
const sysFstatat = -1
