package doctor

import "time"

// fakeToken has the shape of a GitHub token; it is no one's.
const fakeToken = "ghp_hGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rES"

// fixedNow is the vaults' clock: doctor's checks do not depend on it.
func fixedNow() time.Time { return time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC) }
