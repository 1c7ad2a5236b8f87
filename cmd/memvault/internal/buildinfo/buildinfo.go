package buildinfo

import (
	"runtime/debug"
	"time"
)

// Version says which build this is, from the most to the least
// deliberate source:
//
//   - linked, a version set with -ldflags "-X main.version=...": whoever
//     set it meant it, even where the go command stamped something else;
//   - the main module's version: v1.2.3 from go install ...@v1.2.3, or,
//     since Go 1.24, the pseudo-version go build stamps from the clone's
//     git state (v0.0.0-20261201141719-d824770a6a3a, +dirty when the work
//     tree has changes);
//   - the VCS revision, time and modified flag the go command records
//     (toolchains before Go 1.24 leave the version at "(devel)"), in the
//     same pseudo-version form;
//   - else "devel": built without any of these (go run, go test,
//     -buildvcs=false as .ci/run builds).
func Version(linked string, info *debug.BuildInfo, ok bool) string {
	if linked != "" {
		return linked
	}
	if !ok || info == nil {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, at string
	var modified bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	v := "devel-" + rev
	if t, err := time.Parse(time.RFC3339, at); err == nil {
		v = "v0.0.0-" + t.UTC().Format("20060102150405") + "-" + rev
	}
	if modified {
		v += "+dirty"
	}
	return v
}
