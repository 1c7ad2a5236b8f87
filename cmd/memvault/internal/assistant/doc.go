// Package assistant speaks Claude Code's hook contract for the assistant
// hooks (`memvault hook session-start|user-prompt-submit|stop`): it reads
// the event Claude Code writes on standard input, renders what
// vault/inject chose as the text Claude Code adds to the model's context,
// and decides whether a Stop asks the model to record the session's
// decisions. What to inject is vault/inject's rule; this package only
// words it and speaks the client's JSON (docs/assistants.md).
package assistant
