package vault

import "strings"

// stripAddresses removes from a writer's name every part in angle
// brackets, and any bracket left unpaired: a client calling itself "Bob
// Builder <bob@example.com>" would otherwise read, in a Memory-Client
// trailer or `memvault history`, like a person's identity, which only the
// commit's author (the token's owner on a team server) may claim.
func stripAddresses(name string) string {
	if !strings.ContainsAny(name, "<>") {
		return name
	}
	var b strings.Builder
	for {
		open := strings.IndexByte(name, '<')
		if open < 0 {
			break
		}
		end := strings.IndexByte(name[open:], '>')
		if end < 0 {
			break
		}
		b.WriteString(name[:open])
		b.WriteByte(' ')
		name = name[open+end+1:]
	}
	b.WriteString(name)
	return strings.NewReplacer("<", " ", ">", " ").Replace(b.String())
}
