package vault

// OnlyConfirmed reports whether after is before re-checked and nothing
// else: a later verified_at (memvault confirm), every other thing the
// etag covers equal. Reports that tell who changed a memory and why
// (diff, digest, history) tell such a commit as a confirm, not as the
// memory's last change.
func OnlyConfirmed(before, after *Memory) bool {
	if before == nil || after == nil || !after.VerifiedAt.After(before.VerifiedAt) {
		return false
	}
	b := before.clone()
	b.VerifiedAt = after.VerifiedAt
	return b.ETag() == after.ETag()
}
