package vault

import (
	"slices"
	"testing"
)

func TestLayerFolderMismatches(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, rel, file string
		want            []string
	}{
		{"meta file says project", "meta/rules.md", "---\ntitle: Rules\nlayer: project\n---\nbody\n",
			[]string{"meta/rules.md:3: layer: layer project does not match the folder meta/ (layer meta): set layer: meta, or move the file to project/"}},
		{"layer by number", "preferences/tabs.md", "---\ntitle: Tabs\nlayer: 3\n---\nbody\n",
			[]string{"preferences/tabs.md:3: layer: layer project does not match the folder preferences/ (layer preference): set layer: preference, or move the file to project/"}},
		{"matching key", "meta/rules.md", "---\ntitle: Rules\nlayer: meta\n---\nbody\n", nil},
		{"no key", "meta/rules.md", "---\ntitle: Rules\n---\nbody\n", nil},
		{"outside the layer folders", "notes/x.md", "---\ntitle: X\nlayer: meta\n---\nbody\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{tc.rel: tc.file})
			v, err := Open(t.Context(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range v.LayerFolderMismatches() {
				got = append(got, d.Error())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}
