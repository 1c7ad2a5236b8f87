package view

// SyncStatus is the last round of a team server's sync (serve
// --pull-interval), in memory_stats: whether it failed and at which step,
// and the memory files with errors it left out, each with its fix.
type SyncStatus struct {
	// At is when the round ended.
	At string `json:"at"`
	OK bool   `json:"ok"`
	// Step and Error say where and why the round failed.
	Step  string `json:"failed_step,omitempty"`
	Error string `json:"error,omitempty"`
	// Pushed says the round's push went through.
	Pushed bool `json:"pushed"`
	// Broken lists the memory files with errors, one line each: path,
	// line, problem, the commit and author that broke it, the fix.
	Broken []string `json:"broken_files,omitempty"`
}

// GitObjects is the size of a vault repository's object store, in
// memory_stats: loose objects (memvault's writes make them; git gc --auto
// packs them past gc.auto) and packs.
type GitObjects struct {
	Loose      int   `json:"loose"`
	LooseBytes int64 `json:"loose_bytes"`
	Packs      int   `json:"packs"`
	PackBytes  int64 `json:"pack_bytes"`
	// GCAuto is gc.auto: past it, a write starts git gc --auto (0: never).
	GCAuto int `json:"gc_auto"`
}
