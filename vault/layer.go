package vault

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/fault"
)

// Layer is a memory's lifetime class, L1 (transient) to L5 (meta).
type Layer int

// The five layers. The zero Layer is invalid.
const (
	Transient  Layer = 1
	ShortTerm  Layer = 2
	Project    Layer = 3
	Preference Layer = 4
	Meta       Layer = 5
)

// Layers lists every valid layer in order.
var layerInfo = [...]struct {
	name, dir string
	ttl       time.Duration // default lifetime from updated_at; 0 = none
	halfLife  time.Duration // decay half-life; 0 = no decay
	floor     float64       // decay never goes below this factor
	weight    float64       // layer weight in the final score
}{
	Transient:  {"transient", "transient", time.Hour, 30 * time.Minute, 0.05, 1.1},
	ShortTerm:  {"short-term", "short-term", 7 * 24 * time.Hour, 3 * 24 * time.Hour, 0.1, 1.05},
	Project:    {"project", "project", 0, 90 * 24 * time.Hour, 0.35, 1.0},
	Preference: {"preference", "preferences", 0, 365 * 24 * time.Hour, 0.5, 0.9},
	Meta:       {"meta", "meta", 0, 0, 1, 0.6},
}

// AllLayers returns the five layers in order.
func AllLayers() []Layer { return []Layer{Transient, ShortTerm, Project, Preference, Meta} }

// Valid reports whether l is one of the five layers.
func (l Layer) Valid() bool { return l >= Transient && l <= Meta }

// String returns the layer's name as written in front matter ("project").
func (l Layer) String() string {
	if !l.Valid() {
		return fmt.Sprintf("Layer(%d)", int(l))
	}
	return layerInfo[l].name
}

// Dir is the folder, relative to the vault root, that holds the layer's files.
func (l Layer) Dir() string { return layerInfo[l].dir }

// TTL is the default lifetime of a memory of this layer, measured from its
// updated_at; zero means it does not expire by default.
func (l Layer) TTL() time.Duration { return layerInfo[l].ttl }

// Committed reports whether writes of this layer are committed to git. L1 is
// session scratch and lives in an ignored folder.
func (l Layer) Committed() bool { return l != Transient }

// ParseLayer accepts 1..5, L1..L5, and the names and folder names of the
// layers, case-insensitively.
func ParseLayer(s string) (Layer, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.TrimPrefix(t, "l")
	// Only what starts like a number goes to Atoi: its error for a layer
	// name would be an allocation per file loaded.
	if t != "" && strings.ContainsRune("+-0123456789", rune(t[0])) {
		n, err := strconv.Atoi(t)
		if err != nil {
			return 0, fmt.Errorf("%w: %q (want 1-5 or %s)", ErrInvalidLayer, s, layerNames())
		}
		if l := Layer(n); l.Valid() {
			return l, nil
		}
		return 0, fmt.Errorf("%w: %q (want 1-5 or %s)", ErrInvalidLayer, s, layerNames())
	}
	t = strings.ToLower(strings.TrimSpace(s))
	for _, l := range AllLayers() {
		if t == l.String() || t == l.Dir() {
			return l, nil
		}
	}
	switch t {
	case "short", "shortterm", "short_term":
		return ShortTerm, nil
	case "prefs", "pref", "user":
		return Preference, nil
	}
	return 0, fmt.Errorf("%w: %q (want 1-5 or %s)", ErrInvalidLayer, s, layerNames())
}

func layerNames() string {
	names := make([]string, 0, 5)
	for _, l := range AllLayers() {
		names = append(names, l.String())
	}
	return strings.Join(names, "|")
}

// layerFromDir maps the first folder of a vault-relative path to its layer.
func layerFromDir(rel string) (Layer, bool) {
	first, _, _ := strings.Cut(rel, "/")
	for _, l := range AllLayers() {
		if first == l.Dir() {
			return l, true
		}
	}
	return 0, false
}

// ErrLayerFolder is wrapped by the lint warning of a memory whose layer
// key names another layer than the folder it is in.
var ErrLayerFolder = fault.New(fault.Invalid, "does not match the folder")

// LayerFolderMismatches warns, at the layer line, about every memory
// whose `layer` says one layer while its file is in another layer's
// folder (a hand-written `layer: project` in meta/): memvault serves the
// key's layer, but the folder decides what git keeps (transient/ is
// ignored) and where a person looks for it.
func (v *Vault) LayerFolderMismatches() []*Diagnostic {
	var out []*Diagnostic
	for _, m := range v.All() {
		folder, ok := layerFromDir(m.Path)
		if !ok || folder == m.Layer {
			continue
		}
		out = append(out, &Diagnostic{Path: m.Path, Line: v.fieldLine(m.Path, "layer"), Field: "layer", Severity: parser.SeverityWarning,
			Err: fmt.Errorf("layer %s %w %s/ (layer %s): set layer: %s, or move the file to %s/",
				m.Layer, ErrLayerFolder, folder.Dir(), folder, folder, m.Layer.Dir())})
	}
	return out
}
