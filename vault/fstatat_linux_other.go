//go:build linux && !amd64 && !arm64

package vault

// sysFstatat is -1 where the stat structure fstatat fills differs from
// syscall.Stat_t: statKey stats by full path there.
const sysFstatat = -1
