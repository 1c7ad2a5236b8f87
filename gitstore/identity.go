package gitstore

import (
	"fmt"
	"os"
	"strings"
)

// Signature is a person recorded in a commit.
type Signature struct {
	Name  string
	Email string
}

// committerName is the committer recorded on every commit this package
// makes, so tools and people can tell memvault's commits from their own.
const committerName = "memvault"

// identity resolves the author the way git does: GIT_AUTHOR_NAME and
// GIT_AUTHOR_EMAIL first, then author.* over user.* from the repository's
// config, then the global (~/.gitconfig), XDG and system files; EMAIL is
// git's last resort for the address.
func (s *Store) identity(branch string) (Signature, error) {
	ctx := configContext{gitDir: s.gitDir, branch: strings.TrimPrefix(branch, "refs/heads/")}
	user, err := loadUserConfigCtx(ctx)
	if err != nil {
		return Signature{}, err
	}
	repo, err := loadRepoConfig(s.commonDir, s.gitDir)
	if err != nil {
		return Signature{}, err
	}
	all := &gitConfig{files: append(user.files, repo.files...)}
	sig := Signature{
		Name:  firstNonEmpty(os.Getenv("GIT_AUTHOR_NAME"), all.get("author", "", "name"), all.get("user", "", "name")),
		Email: firstNonEmpty(os.Getenv("GIT_AUTHOR_EMAIL"), all.get("author", "", "email"), all.get("user", "", "email"), os.Getenv("EMAIL")),
	}
	if sig.Name == "" || sig.Email == "" {
		return Signature{}, fmt.Errorf("%w: set them with git config --global user.name/user.email", ErrNoIdentity)
	}
	return sig, nil
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}
