package vault

import "context"

// Person is who a write is made for, when it is not the repository's own
// git identity: a team server (memvault serve --http --tokens) knows each
// caller by a token and commits their writes as them.
type Person struct {
	Name, Email string
}

type personKey struct{}

// WithPerson returns ctx carrying p: a Committer commits the writes made
// with it as authored by p. The person travels with the call rather than
// in the Vault, because one server writes for many people at once.
func WithPerson(ctx context.Context, p Person) context.Context {
	return context.WithValue(ctx, personKey{}, p)
}

// PersonOf returns the person ctx carries (WithPerson), if any.
func PersonOf(ctx context.Context) (Person, bool) {
	p, ok := ctx.Value(personKey{}).(Person)
	return p, ok && p.Name != ""
}
