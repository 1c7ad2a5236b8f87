// Package browsertest drives a real headless Chromium for the tests of the
// web view (issue 26): it opens pages, records their console errors and
// failed requests, collects their internal links, runs axe-core in them,
// takes full-page screenshots, checks that nothing overflows a narrow
// viewport, and crawls a site from its root.
//
// It is for tests only (an import rule keeps it out of the binary) and is
// the one home of chromedp. The browser is Debian's chromium package and the
// accessibility checker is axe-core from npm; .ci/run installs both. Where
// either is missing, [New] skips the test naming the missing piece, except
// under CI, where it fails so that CI cannot pass by skipping.
//
// Screenshots and other artefacts go to the folder [ArtifactDir] returns:
// $MEMVAULT_ARTIFACTS/<test name> when that variable is set (.ci/run sets
// it), else the test's temporary folder. The path is logged.
package browsertest
