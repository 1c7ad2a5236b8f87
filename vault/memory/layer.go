package memory

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

const (
	// ProtectionPeriod is how long after creation an L3/L4 memory does not
	// decay at all.
	ProtectionPeriod = 45 * 24 * time.Hour
	// NoDecayImportance is the importance from which L3/L4 memories never
	// decay.
	NoDecayImportance = 8
	// importanceStep is the boost per importance point around 5; the boost
	// is bounded to [0.9, 1.125] so relevance always dominates.
	importanceStep = 0.025
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

// LayerFromDir maps the first folder of a vault-relative path to its layer.
func LayerFromDir(rel string) (Layer, bool) {
	first, _, _ := strings.Cut(rel, "/")
	for _, l := range AllLayers() {
		if first == l.Dir() {
			return l, true
		}
	}
	return 0, false
}

// Weight is the non-relevance part of a memory's score at instant at:
// layer weight x time decay x importance boost. docs/ranking.md has the
// formula.
func Weight(m *Memory, at time.Time) float64 {
	return layerInfo[m.Layer].weight * Decay(m, at) * ImportanceBoost(m.Importance)
}

// MaxWeight bounds Weight for every memory at any instant: the largest
// layer weight, no decay, the largest importance boost. The small margin
// covers rounding in the product, so the index can prune with it safely.
func MaxWeight() float64 {
	w := 0.0
	for _, l := range layerInfo {
		w = max(w, l.weight)
	}
	return w * ImportanceBoost(10) * (1 + 1e-9)
}

// ImportanceBoost maps importance 1..10 to a factor in [0.9, 1.125].
func ImportanceBoost(importance int) float64 {
	return 1 + importanceStep*float64(min(10, max(1, importance))-5)
}

// Decay is the time factor of a memory at instant at: 1 while fresh,
// halving every layer half-life from its last update, never below the
// layer's floor. L3/L4 memories do not decay during the protection period
// after creation, nor ever at importance >= NoDecayImportance; L5 never
// decays.
func Decay(m *Memory, at time.Time) float64 {
	info := layerInfo[m.Layer]
	if info.halfLife == 0 {
		return 1
	}
	from := m.UpdatedAt
	if m.Layer == Project || m.Layer == Preference {
		if m.Importance >= NoDecayImportance {
			return 1
		}
		if p := m.CreatedAt.Add(ProtectionPeriod); p.After(from) {
			from = p
		}
	}
	age := at.Sub(from)
	if age <= 0 {
		return 1
	}
	f := math.Exp2(-float64(age) / float64(info.halfLife))
	return info.floor + (1-info.floor)*f
}
