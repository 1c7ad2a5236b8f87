//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault"
)

// crashWrites is how many acknowledged writes the crash test performs.
const crashWrites = 100

// minKills is how many of the CLI writes the crash test kills at least.
const minKills = crashWrites / 4

// TestCrashSafety runs `memvault add` and `memvault update` against a real
// repository, then `memvault serve`, and kills them with SIGKILL at random
// moments. After every kill it checks that the vault loads, every
// acknowledged write is in its file and committed, no file is half
// written, git fsck is clean, doctor reports what was left (a git lock as
// left by a stopped memvault process) and --fix or the next write repairs
// it, and that the user's own git commit then succeeds with no lock file
// removed by hand. Set
// MEMVAULT_CRASH_SEED to replay a run; the seed is logged.
func TestCrashSafety(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and kills the binary many times")
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("MEMVAULT_CRASH_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("MEMVAULT_CRASH_SEED=%q: %v", s, err)
		}
	}
	t.Logf("seed %d (replay with MEMVAULT_CRASH_SEED=%d)", seed, seed)
	bin := buildMemvault(t)
	root := newRepo(t)
	c := &crashRun{t: t, bin: bin, root: root, dir: filepath.Join(root, ".memory"),
		rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), acked: map[string]*ackedMemory{}, states: map[string]int{}, spent: map[string]time.Duration{}}
	start := time.Now()
	// Until enough writes were acknowledged and enough were killed: on a
	// loaded machine a write's length swings, and a kill drawn around the
	// typical length can land after the write; more attempts, not a
	// failure, make up for kills that missed.
	for attempt := 0; len(c.order) < crashWrites || c.kills < minKills; attempt++ {
		if attempt > 8*crashWrites {
			t.Fatalf("only %d acknowledged writes and %d kills after %d attempts", len(c.order), c.kills, attempt)
		}
		c.step(attempt)
	}
	cliKills, cliWrites, cliLocks := c.kills, len(c.order), c.locksLeft
	nServe := serveWrites
	if s := os.Getenv("MEMVAULT_CRASH_SERVE_WRITES"); s != "" {
		var err error
		if nServe, err = strconv.Atoi(s); err != nil || nServe < 1 {
			t.Fatalf("MEMVAULT_CRASH_SERVE_WRITES=%q: want a positive count", s)
		}
	}
	c.serveTarget = cliWrites + nServe
	// Then the MCP server over stdio: it writes back to back, so a kill
	// lands inside a write far more often than with one process per write.
	for session := 0; len(c.order) < c.serveTarget; session++ {
		if session > 4*nServe {
			t.Fatalf("only %d acknowledged serve writes after %d sessions", len(c.order)-cliWrites, session)
		}
		c.serveSession(session)
	}
	if report, code := c.doctor(false); code != 0 {
		t.Fatalf("end: doctor reports problems:\n%s", report)
	}
	c.checkAfterRecovery("end")
	c.checkCommitted("end")
	keys := make([]string, 0, len(c.states))
	for k := range c.states {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "\n  %-40s %d", k, c.states[k])
	}
	t.Logf("spent %v", c.spent)
	t.Logf("%d acknowledged writes (%d by serve), %d kills (%d of the CLI, %d of serve) in %s; states after kills:%s",
		len(c.order), len(c.order)-cliWrites, c.kills, cliKills, c.kills-cliKills, time.Since(start).Round(time.Millisecond), b.String())
	// Finding 13 of issue 13: a kill of serve mid-write left a git lock
	// that blocked the user's own git commit until removed by hand.
	serveKills, serveLocks := c.kills-cliKills, c.locksLeft-cliLocks
	t.Logf("serve: %d acknowledged writes, %d SIGKILLs, %d of them left .git/index.lock or the branch's .lock; "+
		"CLI: %d kills, %d left a lock; the user's git commit ran %d times after the next write or doctor --fix, with no manual cleanup, and succeeded every time (a failure fails the test)",
		len(c.order)-cliWrites, serveKills, serveLocks, cliKills, cliLocks, c.userCommits)
	if c.kills < minKills {
		t.Errorf("only %d kills: the test did not exercise crashes", c.kills)
	}
}

// serveWrites is how many more acknowledged writes go through `memvault
// serve` after the CLI ones; MEMVAULT_CRASH_SERVE_WRITES changes it. The
// default keeps the test's share of CI small; the fault-injection figure
// of docs/hardening.md (200 writes) is MEMVAULT_CRASH_SERVE_WRITES=200.
const serveWrites = 50

// serveSession starts `memvault serve` on stdio, sends remember calls one
// after another and usually kills the server after a random time. A
// remember is acknowledged when its answer arrives without isError.
func (c *crashRun) serveSession(n int) {
	t := c.t
	cmd := exec.Command(c.bin, "serve", "--vault", c.dir)
	cmd.Dir = c.root
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(stdout)
	send := func(v any) error {
		b, _ := json.Marshal(v)
		_, err := stdin.Write(append(b, '\n'))
		return err
	}
	type rpcResponse struct {
		ID     int    `json:"id"`
		Method string `json:"method"` // set on notifications, which are skipped
		Result struct {
			IsError           bool `json:"isError"`
			StructuredContent struct {
				ID string `json:"id"`
			} `json:"structuredContent"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	send(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "crash-test", "version": "1"}}})
	for {
		var init rpcResponse
		if err := dec.Decode(&init); err != nil {
			t.Fatalf("serve session %d: initialize: %v", n, err)
		}
		if init.Method == "" {
			break
		}
	}
	send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	kill := c.rng.IntN(100) < 85
	began := time.Now()
	if kill {
		// Anywhere in the session's writes: uniformly over the length of
		// recent sessions that were not killed, once there are some
		// (the first write of a session waits for the vault to load, so
		// the CLI's write length says little); before, up to twice a CLI
		// write.
		span := 2 * c.typicalWrite()
		if n := len(c.sessions); n >= 2 {
			span = median(c.sessions[max(0, n-recentWrites):])
		}
		delay := time.Duration(float64(span) * c.rng.Float64())
		timer := time.AfterFunc(delay, func() { cmd.Process.Signal(syscall.SIGKILL) })
		defer timer.Stop()
	}
	writes := 0
	killed, inFlight := false, "none"
	for i := 1; i <= 5 && len(c.order) < c.serveTarget; i++ {
		token := fmt.Sprintf("serve-%03d-%02d", n, i)
		content := fmt.Sprintf("Crash test %s: %s.", token, strings.Repeat("服务 serve ", 1+c.rng.IntN(200)))
		args := map[string]any{"title": "Served " + token, "content": content, "reason": "crash test " + token,
			"layer": []string{"short-term", "project", "meta"}[c.rng.IntN(3)]}
		// update_memory needs the version the caller saw; the CLI phase
		// covers updates, so serve only remembers (which may merge into a
		// near-duplicate title: an update as well).
		tool := "remember"
		var res rpcResponse
		err := send(map[string]any{"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
		for err == nil {
			res = rpcResponse{}
			if err = dec.Decode(&res); err == nil && res.Method == "" && res.ID == i {
				break
			}
		}
		if err != nil {
			killed = true
			inFlight = token
			break
		}
		if res.Error != nil || res.Result.IsError || res.Result.StructuredContent.ID == "" {
			t.Fatalf("serve session %d: %s: %+v", n, tool, res)
		}
		c.acked[res.Result.StructuredContent.ID] = &ackedMemory{content: content}
		c.order = append(c.order, res.Result.StructuredContent.ID)
		writes++
		if c.autoPending != "" {
			c.adopt(c.checkAfterRecovery(c.autoPending + ", recovered by the next serve write"))
		}
	}
	stdin.Close()
	err = cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.Sys().(syscall.WaitStatus).Signaled() {
		killed = true
	}
	if !killed {
		if !kill && writes == 5 {
			c.sessions = append(c.sessions, time.Since(began))
		}
		return
	}
	c.kills++
	// serve does not replay a journal when it starts, but its first write
	// finishes it before writing its own.
	c.afterKill(fmt.Sprintf("serve kill %d (session %d)", c.kills, n), inFlight, true)
}

// crashRun is the state of one crash test.
type crashRun struct {
	t         *testing.T
	bin       string
	root, dir string
	rng       *rand.Rand
	acked     map[string]*ackedMemory // by id
	order     []string                // acknowledged write ids in order (repeats for updates)
	durations []time.Duration         // of writes that were not killed
	sessions  []time.Duration         // of serve sessions of five writes that were not killed
	kills     int
	// serveTarget is how many acknowledged writes there are when the
	// serve phase ends.
	serveTarget int
	states      map[string]int // what was found after kills, counted
	// killedTokens are the tokens of killed writes not yet looked for;
	// autoPending names a kill left for the next write to recover.
	killedTokens []string
	autoPending  string
	spent        map[string]time.Duration
	// locksLeft counts kills that left a git lock; userCommits the
	// user's git commits that succeeded after recovery.
	locksLeft, userCommits int
}

func (c *crashRun) timeit(name string) func() {
	t0 := time.Now()
	return func() { c.spent[name] += time.Since(t0) }
}

// ackedMemory is what a memory must hold after its last acknowledged write;
// pending are the contents of killed updates that may or may not have
// landed since: more than one when a killed write was left to the next one
// to recover (it finishes the first before it is killed in turn).
type ackedMemory struct {
	content string
	pending []string
}

// step runs one write and maybe kills it.
func (c *crashRun) step(n int) {
	t := c.t
	token := fmt.Sprintf("write-%03d", n)
	content := fmt.Sprintf("Crash test %s: %s.", token, strings.Repeat("内容 content ", 1+c.rng.IntN(200)))
	var args []string
	var target string // id for an update
	ids := c.ids()
	if len(ids) > 3 && c.rng.IntN(3) == 0 {
		target = ids[c.rng.IntN(len(ids))]
		args = []string{"update", target, "--content", content, "--reason", "crash test " + token, "--json"}
		// Moving between layers writes one file and removes another.
		if c.rng.IntN(2) == 0 {
			args = append(args, "--layer", []string{"short-term", "project", "preference"}[c.rng.IntN(3)])
		}
	} else {
		args = []string{"add", "Crash " + token, "--content", content, "--reason", "crash test " + token,
			"--layer", []string{"short-term", "project", "preference", "meta"}[c.rng.IntN(4)], "--json"}
	}
	cmd := exec.Command(c.bin, args...)
	cmd.Dir = c.root
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	kill := len(c.durations) >= 3 && c.rng.IntN(100) < 55
	var delay time.Duration
	if kill {
		// Around the typical length of a write, so kills land anywhere
		// from start-up to after the commit.
		med := c.typicalWrite()
		delay = time.Duration(float64(med) * (0.3 + 0.8*c.rng.Float64()))
	}
	began := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if kill {
		timer := time.AfterFunc(delay, func() { cmd.Process.Signal(syscall.SIGKILL) })
		defer timer.Stop()
	}
	err := cmd.Wait()
	elapsed := time.Since(began)
	c.spent["write"] += elapsed
	var exit *exec.ExitError
	killed := errors.As(err, &exit) && exit.Sys().(syscall.WaitStatus).Signaled()
	switch {
	case killed:
		c.kills++
		if target != "" {
			c.acked[target].pending = append(c.acked[target].pending, content)
		}
		c.afterKill(fmt.Sprintf("kill %d (attempt %d, %s after start, %s)", c.kills, n, delay.Round(time.Microsecond), args[0]), token, true)
		return
	case err != nil:
		t.Fatalf("attempt %d: memvault %s: %v\n%s", n, strings.Join(args[:2], " "), err, stderr.String())
	}
	if !kill {
		c.durations = append(c.durations, elapsed)
	} else {
		c.states["write finished before the kill"]++
	}
	var res struct {
		ID      string `json:"id"`
		Commit  string `json:"commit"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil || res.ID == "" {
		t.Fatalf("attempt %d: output %q: %v", n, stdout.String(), err)
	}
	if res.Commit == "" {
		t.Fatalf("attempt %d: acknowledged write %s has no commit", n, res.ID)
	}
	c.acked[res.ID] = &ackedMemory{content: content}
	c.order = append(c.order, res.ID)
	if c.autoPending != "" {
		c.adopt(c.checkAfterRecovery(c.autoPending + ", recovered by the next write"))
	}
}

func (c *crashRun) ids() []string {
	ids := make([]string, 0, len(c.acked))
	for id := range c.acked {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// afterKill looks at what the kill left, lets doctor report and repair it,
// and checks the invariants.
func (c *crashRun) afterKill(where, token string, nextWriteRecovers bool) {
	t := c.t
	journal := exists(filepath.Join(c.dir, vault.JournalName))
	indexLock := exists(filepath.Join(c.root, ".git", "index.lock"))
	refLocks, _ := filepath.Glob(filepath.Join(c.root, ".git", "refs", "heads", "*.lock"))
	// Not the owner records memvault keeps beside its locks.
	refLocks = slices.DeleteFunc(refLocks, func(p string) bool { return strings.Contains(filepath.Base(p), ".memvault.") })
	temps := c.tempFiles()
	var dirty []string // changed memory files, not temp files
	for _, f := range c.gitStatus() {
		if strings.HasSuffix(f, ".md") {
			dirty = append(dirty, f)
		}
	}
	if journal {
		c.states["journal left"]++
	}
	if indexLock {
		c.states[".git/index.lock left"]++
	}
	if len(refLocks) > 0 {
		c.states["branch ref .lock left"]++
	}
	if len(temps) > 0 {
		c.states["temp file left"]++
	}
	if len(dirty) > 0 {
		c.states["uncommitted files"]++
	}
	if !journal && !indexLock && len(refLocks) == 0 && len(temps) == 0 && len(dirty) == 0 {
		c.states["clean (killed before or after the write)"]++
	}

	// The vault loads and nothing acknowledged is missing even before any
	// repair: a journal only ever adds the write in flight.
	c.checkAcked(where+", before repair", true)

	// doctor's report is checked against what the kill left; a clean kill
	// leaves nothing to check it against, and the run is skipped.
	clean := !journal && !indexLock && len(refLocks) == 0 && len(temps) == 0 && len(dirty) == 0
	report, code := "", 0
	if !clean {
		report, code = c.doctor(false)
	}
	if journal && !strings.Contains(report, `"check": "journal"`) || journal && code == 0 {
		t.Fatalf("%s: a journal was left but doctor (exit %d) does not report it:\n%s", where, code, report)
	}
	if len(dirty) > 0 && code == 0 {
		t.Fatalf("%s: files differ from HEAD (%v) but doctor exits 0:\n%s", where, dirty, report)
	}
	// A lock the killed process left is named as its, not git's: the next
	// write or doctor --fix removes it, with no person involved.
	locks := refLocks
	if indexLock {
		locks = append(locks, filepath.Join(c.root, ".git", "index.lock"))
	}
	for _, l := range locks {
		if !strings.Contains(report, filepath.Base(l)+" was left by memvault process") || !strings.Contains(report, "no longer running") {
			t.Fatalf("%s: %s was left but doctor does not call it a stopped memvault process's:\n%s", where, l, report)
		}
	}
	if len(locks) > 0 {
		c.locksLeft++
	}
	c.killedTokens = append(c.killedTokens, token)
	if nextWriteRecovers && c.rng.IntN(3) == 0 {
		// Leave the repair to the next write, which finishes a pending
		// journal before its own; the next acknowledged write checks the
		// result.
		c.autoPending = where
		c.states["left to the next write to recover"]++
		return
	}
	// doctor exits non-zero while problems remain, so a clean exit of
	// --fix is a clean report.
	fixed, code := c.doctor(true)
	if code != 0 {
		t.Fatalf("%s: doctor --fix exits %d:\n%s", where, code, fixed)
	}
	if strings.Contains(fixed, `"status": "fixed"`) {
		c.states["doctor --fix repaired something"]++
	}
	if strings.Contains(fixed, "committed the interrupted write") {
		c.states["doctor --fix finished the journaled write"]++
	}
	if strings.Contains(fixed, "hand-edited file") {
		c.states["doctor --fix committed leftover files"]++
	}
	if strings.Contains(fixed, "left by memvault process") {
		c.states["doctor --fix removed a git lock"]++
	}
	c.adopt(c.checkAfterRecovery(where))
}

// adopt makes killed writes that recovery finished part of what later
// checks expect: an added memory is now one like any other, an update's
// content is the memory's content.
func (c *crashRun) adopt(v *vault.Vault) {
	c.autoPending = ""
	for _, m := range v.All() {
		for _, token := range c.killedTokens {
			if strings.Contains(m.Body, token+":") {
				if _, ok := c.acked[m.ID]; !ok {
					c.acked[m.ID] = &ackedMemory{content: strings.TrimSpace(m.Body)}
					c.states["killed add present after recovery"]++
				}
			}
		}
	}
	c.killedTokens = c.killedTokens[:0]
	for id, a := range c.acked {
		if len(a.pending) == 0 {
			continue
		}
		if m, err := v.Get(id); err == nil && slices.Contains(a.pending, strings.TrimSpace(m.Body)) {
			a.content = strings.TrimSpace(m.Body)
			c.states["killed update present after recovery"]++
		}
		a.pending = nil
	}
}

// checkAfterRecovery checks what must hold once doctor --fix has run:
// nothing under the vault differs from HEAD, git fsck passes, every
// acknowledged write is there. It returns the vault as loaded.
func (c *crashRun) checkAfterRecovery(where string) *vault.Vault {
	t := c.t
	if dirty := c.gitStatus(); len(dirty) > 0 {
		t.Fatalf("%s: after doctor --fix, git status lists %v", where, dirty)
	}
	if temps := c.tempFiles(); len(temps) > 0 {
		t.Fatalf("%s: after doctor --fix, temp files remain: %v", where, temps)
	}
	if exists(filepath.Join(c.dir, vault.JournalName)) {
		t.Fatalf("%s: journal remains after doctor --fix", where)
	}
	c.userCommit(where)
	done := c.timeit("fsck")
	out, err := exec.Command("git", "-C", c.root, "fsck", "--no-progress", "--no-dangling").CombinedOutput()
	done()
	if err != nil {
		t.Fatalf("%s: git fsck: %v\n%s", where, err, out)
	}
	// A clean git status with every acknowledged memory in its file means
	// every one is committed; checkCommitted proves it the long way at the
	// end.
	return c.checkAcked(where+", after repair", false)
}

// userCommit commits a change of the user's, outside the vault, with the
// git CLI, as a person would after memvault was killed and the next write
// or doctor --fix ran: it must succeed with no lock left to remove by
// hand, and no owner record of a memvault lock may be left behind.
func (c *crashRun) userCommit(where string) {
	t := c.t
	defer c.timeit("user commit")()
	for _, pattern := range []string{"*.lock", "refs/heads/*.lock"} {
		left, _ := filepath.Glob(filepath.Join(c.root, ".git", pattern))
		// memvault.lock is the cross-process write lock's flock file,
		// which stays.
		left = slices.DeleteFunc(left, func(p string) bool { return filepath.Base(p) == "memvault.lock" })
		if len(left) > 0 {
			t.Fatalf("%s: lock files or owner records remain after recovery: %v", where, left)
		}
	}
	c.userCommits++
	notes := filepath.Join(c.root, "notes.txt")
	if err := os.WriteFile(notes, fmt.Appendf(nil, "user commit %d\n", c.userCommits), 0o644); err != nil {
		t.Fatal(err)
	}
	if c.userCommits == 1 {
		if out, err := exec.Command("git", "-C", c.root, "add", "notes.txt").CombinedOutput(); err != nil {
			t.Fatalf("%s: the user's git add fails: %v\n%s", where, err, out)
		}
	}
	if out, err := exec.Command("git", "-C", c.root, "commit", "-q", "-m", "user's own commit", "--", "notes.txt").CombinedOutput(); err != nil {
		t.Fatalf("%s: the user's git commit fails: %v\n%s", where, err, out)
	}
}

// checkAcked opens the vault and checks every acknowledged write: its
// memory is there with its content (or the content of a killed update),
// and no file fails to parse. With loose set, a duplicate id (a moved
// file whose old copy a kill left) is tolerated.
func (c *crashRun) checkAcked(where string, loose bool) *vault.Vault {
	t := c.t
	v := c.open(where)
	for _, d := range v.Diagnostics() {
		// A duplicate id is reported as an error too, so it is told
		// apart first.
		if errors.Is(d.Err, vault.ErrDuplicateID) {
			if !loose {
				t.Fatalf("%s: %v", where, d)
			}
			c.states["duplicate id before repair (move interrupted)"]++
			continue
		}
		if d.Severity == parser.SeverityError {
			t.Fatalf("%s: %s does not parse: %v", where, d.Path, d)
		}
	}
	for id, a := range c.acked {
		m, err := v.Get(id)
		if err != nil {
			t.Fatalf("%s: acknowledged memory %s: %v", where, id, err)
		}
		body := strings.TrimSpace(m.Body)
		if body != a.content && !slices.Contains(a.pending, body) {
			t.Fatalf("%s: memory %s holds %.60q, want %.60q", where, id, body, a.content)
		}
	}
	return v
}

// checkCommitted checks that HEAD holds every acknowledged memory's file
// as it is on disk, as git itself reads HEAD: one git cat-file --batch
// for all the files.
func (c *crashRun) checkCommitted(where string) {
	t := c.t
	v := c.open(where)
	var rels []string
	var query strings.Builder
	for id := range c.acked {
		m, err := v.Get(id)
		if err != nil {
			t.Fatalf("%s: %s: %v", where, id, err)
		}
		rel := ".memory/" + m.Path
		rels = append(rels, rel)
		fmt.Fprintf(&query, "HEAD:%s\n", rel)
	}
	cmd := exec.Command("git", "-C", c.root, "cat-file", "--batch")
	cmd.Stdin = strings.NewReader(query.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: git cat-file --batch: %v", where, err)
	}
	for _, rel := range rels {
		// Each answer is "<hash> blob <size>\n<content>\n", or
		// "<object> missing\n".
		line, rest, _ := bytes.Cut(out, []byte("\n"))
		f := strings.Fields(string(line))
		if len(f) != 3 || f[1] != "blob" {
			t.Fatalf("%s: %s is not in HEAD: git cat-file says %q", where, rel, line)
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || len(rest) < size+1 {
			t.Fatalf("%s: %s: git cat-file answer %q cut short", where, rel, line)
		}
		head := rest[:size]
		out = rest[size+1:]
		disk, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(rel)))
		if err != nil || !bytes.Equal(head, disk) {
			t.Fatalf("%s: %s in HEAD differs from the file (%v)", where, rel, err)
		}
	}
}

func (c *crashRun) open(where string) *vault.Vault {
	c.t.Helper()
	defer c.timeit("open")()
	v, err := vault.Open(context.Background(), c.dir, vault.Options{})
	if err != nil {
		c.t.Fatalf("%s: the vault does not load: %v", where, err)
	}
	return v
}

// doctor runs memvault doctor --json [--fix] and returns its output and
// exit code.
func (c *crashRun) doctor(fix bool) (string, int) {
	defer c.timeit("doctor")()
	args := []string{"doctor", "--json"}
	if fix {
		args = append(args, "--fix")
	}
	cmd := exec.Command(c.bin, args...)
	cmd.Dir = c.root
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	case err != nil:
		c.t.Fatalf("doctor: %v", err)
	}
	return string(out), 0
}

// gitStatus lists what git sees changed or untracked under the vault.
func (c *crashRun) gitStatus() []string {
	defer c.timeit("status")()
	out, err := exec.Command("git", "-C", c.root, "status", "--porcelain", "--untracked-files=all", "--", ".memory").Output()
	if err != nil {
		c.t.Fatalf("git status: %v", err)
	}
	return strings.Fields(strings.TrimSpace(string(out)))
}

// tempFiles lists writeFileAtomic's leftovers under the vault.
func (c *crashRun) tempFiles() []string {
	var out []string
	filepath.WalkDir(c.dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// recentWrites is how many of the last writes that were not killed
// typicalWrite looks at.
const recentWrites = 9

// typicalWrite is the median length of the last writes that were not
// killed, which the kill delays are drawn around. Recent ones only: the
// other tests of the package run beside this one, so a write's length
// follows the machine's load, which falls as they finish; the median of
// all writes would draw delays past the end of most writes by then, and
// the kills would miss.
func (c *crashRun) typicalWrite() time.Duration {
	return median(c.durations[max(0, len(c.durations)-recentWrites):])
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
