package jsonschema

// memvault patch: tests of the drafts' meta-schemas compiled on first use
// rather than in init (see PATCHED.md).

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

const lazyChildEnv = "JSONSCHEMA_LAZY_CHILD"

var allDrafts = []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020}

// TestDraftsCompiledOnFirstUse runs itself again in a new process, where no
// other test can have compiled anything yet: there the drafts' schemas
// must be nil until the first Compile, and complete and usable after it.
func TestDraftsCompiledOnFirstUse(t *testing.T) {
	if os.Getenv(lazyChildEnv) != "1" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDraftsCompiledOnFirstUse$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), lazyChildEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child process: %v\n%s", err, out)
		}
		if !strings.Contains(string(out), "--- PASS: TestDraftsCompiledOnFirstUse") {
			t.Fatalf("the child process did not run the test:\n%s", out)
		}
		return
	}

	for _, d := range allDrafts {
		if d.sch != nil {
			t.Errorf("%s: meta-schema compiled before first use", d)
		}
		for name, sch := range d.allVocabs {
			if sch != nil {
				t.Errorf("%s: vocabulary %q compiled before first use", d, name)
			}
		}
	}

	// First use from several goroutines at once: each must see the
	// drafts complete (the race detector checks the hand-over).
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func(i int) { // the module's go 1.21: one i for the whole loop
			defer wg.Done()
			errs[i] = useCompiler()
		}(i)
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}

	for _, d := range allDrafts {
		if d.sch == nil {
			t.Errorf("%s: meta-schema not compiled after first use", d)
		}
		for name, sch := range d.allVocabs {
			if sch == nil {
				t.Errorf("%s: vocabulary %q not compiled after first use", d, name)
			}
		}
	}
}

// useCompiler compiles a schema, checks that the meta-schema rejects an
// invalid one, and validates with the compiled schema.
func useCompiler() error {
	c := NewCompiler()
	if err := c.AddResource("schema.json", map[string]any{"type": "string"}); err != nil {
		return err
	}
	if err := c.AddResource("bad.json", map[string]any{"type": 1}); err != nil {
		return err
	}
	sch, err := c.Compile("schema.json")
	if err != nil {
		return err
	}
	if err := sch.Validate("text"); err != nil {
		return errors.New("a string is refused: " + err.Error())
	}
	if err := sch.Validate(1.0); err == nil {
		return errors.New("a number is accepted")
	}
	_, err = c.Compile("bad.json")
	var verr *SchemaValidationError
	if !errors.As(err, &verr) {
		return errors.New("an invalid schema compiled without a meta-schema error: " + errString(err))
	}
	return nil
}

func errString(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}
