package webui

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/commitmsg"
	"github.com/memvault/memvault/vault/history"
)

// The timeline pages through the vault's commits lazily: each page walks
// the log from its cursor (a commit id) and stops once the page is full,
// so a page costs the same on a 100k-commit history as on a short one.
// Filters that the walk cannot apply (author, client, tag) are applied to
// what it reads; a page that finds too few matches within maxScan commits
// stops there and offers to go on from where it stopped.
const (
	pageSize  = 50
	scanChunk = 200
	maxScan   = 2000
)

// timelineQuery is the timeline's filters and cursor.
type timelineQuery struct {
	Layer, Tag, Author, Client string
	From                       string // the first commit of the page; "" is HEAD
}

func (q timelineQuery) values() url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"layer": q.Layer, "tag": q.Tag, "author": q.Author, "client": q.Client, "from": q.From} {
		if s != "" {
			v.Set(k, s)
		}
	}
	return v
}

// URL is the timeline page of q.
func (q timelineQuery) URL() string {
	if v := q.values(); len(v) > 0 {
		return "/timeline?" + v.Encode()
	}
	return "/timeline"
}

// commitRow is one commit of the vault.
type commitRow struct {
	Hash, Author, Email, Client string
	When                        time.Time
	Subject, Reason             string
	Layer                       string // the Memory-Layer trailer, else ""
	IDs                         []string
	Merge                       bool
}

// commitPage is one page of commits and where the next starts.
type commitPage struct {
	Rows    []commitRow
	Next    string // the cursor of the next page; "" at the end
	Scanned int
	Short   bool // maxScan reached before the page filled
}

func rowOf(e history.LogEntry) commitRow {
	msg := commitmsg.Parse(e.Message)
	r := commitRow{Hash: e.Hash, Author: e.Author.Name, Email: e.Author.Email, When: e.When, Subject: msg.Subject, Reason: msg.Body,
		Client: msg.Get(commitmsg.KeyClient), Layer: msg.Get(commitmsg.KeyLayer), Merge: len(e.Parents) > 1}
	for _, t := range msg.Trailers {
		if strings.EqualFold(t.Key, commitmsg.KeyID) {
			r.IDs = append(r.IDs, t.Value)
		}
	}
	return r
}

// commits reads up to n commits of q from q.From, walking at most
// maxScan; stop, when set, ends the walk at the first commit it accepts
// (the overview's "last 7 days").
func (s *Server) commits(ctx context.Context, repo history.Repo, v *vault.Vault, q timelineQuery, n int, stop func(commitRow) bool) (commitPage, error) {
	path := ""
	if q.Layer != "" {
		l, err := vault.ParseLayer(q.Layer)
		if err != nil {
			return commitPage{}, httpError{http.StatusBadRequest, err.Error()}
		}
		path = l.Dir()
	}
	var tagged map[string]bool
	if q.Tag != "" {
		tagged = map[string]bool{}
		for _, m := range v.All() {
			if slices.Contains(m.Tags, q.Tag) {
				tagged[m.ID] = true
			}
		}
	}
	keep := func(r commitRow) bool {
		if q.Author != "" && !strings.Contains(strings.ToLower(r.Author+" <"+r.Email+">"), strings.ToLower(q.Author)) {
			return false
		}
		if q.Client != "" && !strings.EqualFold(r.Client, q.Client) {
			return false
		}
		if tagged != nil && !slices.ContainsFunc(r.IDs, func(id string) bool { return tagged[id] }) {
			return false
		}
		return true
	}
	var pg commitPage
	from := q.From
	filtered := q.Author != "" || q.Client != "" || tagged != nil
	for {
		want := n + 1 - len(pg.Rows)
		if filtered {
			want = scanChunk + 1
		}
		es, err := repo.Log(ctx, path, history.LogOptions{Rev: from, Limit: want})
		if err != nil {
			if from == "" && len(pg.Rows) == 0 && isEmptyHistory(err) {
				return pg, nil
			}
			return commitPage{}, err
		}
		more := len(es) == want
		if more {
			from = es[len(es)-1].Hash
			es = es[:len(es)-1]
		}
		for _, e := range es {
			r := rowOf(e)
			if stop != nil && stop(r) {
				return pg, nil
			}
			pg.Scanned++
			if !keep(r) {
				continue
			}
			if len(pg.Rows) == n {
				pg.Next = e.Hash
				return pg, nil
			}
			pg.Rows = append(pg.Rows, r)
		}
		if !more {
			return pg, nil
		}
		if len(pg.Rows) == n || pg.Scanned >= maxScan {
			pg.Next, pg.Short = from, len(pg.Rows) < n
			return pg, nil
		}
	}
}

// isEmptyHistory reports a HEAD with no commit yet.
func isEmptyHistory(err error) bool { return errors.Is(err, history.ErrNotFound) }

// day is the commits of one day.
type day struct {
	Day  string
	Rows []commitRow
}

type timelineData struct {
	Query  timelineQuery
	InGit  bool
	Days   []day
	Page   commitPage
	Next   string // URL of the next page
	Layers []string
	First  bool
}

func (s *Server) timeline(r *http.Request, l string, v *vault.Vault) (render, error) {
	ctx := r.Context()
	p := r.URL.Query()
	q := timelineQuery{Layer: p.Get("layer"), Tag: p.Get("tag"), Author: p.Get("author"), Client: p.Get("client"), From: p.Get("from")}
	d := timelineData{Query: q, First: q.From == ""}
	for _, ly := range vault.AllLayers() {
		if ly.Committed() {
			d.Layers = append(d.Layers, ly.String())
		}
	}
	repo, err := s.cfg.Source.Repo(ctx)
	if err != nil {
		return render{}, err
	}
	if repo == nil {
		return render{"timeline", text(l, "timeline"), "timeline", d}, nil
	}
	d.InGit = true
	pg, err := s.commits(ctx, repo, v, q, pageSize, nil)
	if err != nil {
		return render{}, err
	}
	d.Page = pg
	for _, row := range pg.Rows {
		k := row.When.UTC().Format(time.DateOnly)
		if len(d.Days) == 0 || d.Days[len(d.Days)-1].Day != k {
			d.Days = append(d.Days, day{Day: k})
		}
		d.Days[len(d.Days)-1].Rows = append(d.Days[len(d.Days)-1].Rows, row)
	}
	if pg.Next != "" {
		nq := q
		nq.From = pg.Next
		d.Next = nq.URL()
	}
	return render{"timeline", text(l, "timeline"), "timeline", d}, nil
}

// URLFirst is the first page of q's filters.
func (q timelineQuery) URLFirst() string {
	q.From = ""
	return q.URL()
}
