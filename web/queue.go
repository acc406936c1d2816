package web

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

// queuePageSize is how many submissions a page of the review queue shows.
const queuePageSize = 50

// queueSources are the sources the queue filters by, with their labels.
var queueSources = []option{
	{Value: string(registry.SourceREST), Label: "REST API"},
	{Value: string(registry.SourceGitHub), Label: "GitHub"},
	{Value: string(registry.SourceMCPRegistry), Label: "MCP Registry import"},
	{Value: string(registry.SourceLeanCtx), Label: "lean-ctx file"},
}

// queueOrders are the queue's orders, the default first.
var queueOrders = []option{
	{Value: "", Label: "oldest first"},
	{Value: string(storage.NewestFirst), Label: "newest first"},
	{Value: string(storage.WorstFirst), Label: "worst verdict first"},
}

type queueItem struct {
	storage.QueueEntry
	Link   string
	Age    when
	Origin origin
}

type queuePage struct {
	Statuses, Verdicts, Sources, Orders []option
	Filtered                            bool // anything but the pending queue, oldest first
	Submissions                         []queueItem
	Next, First                         string
}

// queueParams are the queue's filters and order, in the order its links
// carry them.
var queueParams = []string{"status", "verdict", "source", "sort"}

// queue serves the review queue: pending submissions by default, oldest
// first. Unknown filter values are ignored, not echoed.
func (h *Handler) queue(w http.ResponseWriter, r *http.Request, v *view) error {
	q := r.URL.Query()
	status := q.Get("status")
	if _, ok := q["status"]; !ok {
		status = string(registry.StatusPending)
	}
	f := storage.SubmissionFilter{}
	p := queuePage{}
	for _, s := range []registry.SubmissionStatus{registry.StatusPending, registry.StatusApproved, registry.StatusRejected} {
		p.Statuses = append(p.Statuses, option{Value: string(s), Label: string(s), Selected: status == string(s)})
		if status == string(s) {
			f.Status = s
		}
	}
	p.Statuses = append(p.Statuses, option{Value: "all", Label: "all", Selected: f.Status == ""})
	for _, vd := range []registry.Verdict{registry.VerdictFail, registry.VerdictReview, registry.VerdictPass} {
		p.Verdicts = append(p.Verdicts, option{Value: string(vd), Label: string(vd), Selected: q.Get("verdict") == string(vd)})
		if q.Get("verdict") == string(vd) {
			f.Verdict = vd
		}
	}
	p.Sources = selectOne(queueSources, q.Get("source"), func(s string) { f.Source = registry.Source(s) })
	p.Orders = selectOne(queueOrders, q.Get("sort"), func(s string) { f.Order = storage.SubmissionOrder(s) })
	p.Filtered = f != storage.SubmissionFilter{Status: registry.StatusPending}

	entries, next, err := h.d.Reader.ReviewQueue(r.Context(), f, storage.Page{Cursor: q.Get("cursor"), Limit: queuePageSize})
	if errors.Is(err, registry.ErrInvalid) { // a cursor this server did not make: start over
		entries, next, err = h.d.Reader.ReviewQueue(r.Context(), f, storage.Page{Limit: queuePageSize})
	}
	if err != nil {
		return err
	}
	now := h.d.Now()
	for _, e := range entries {
		p.Submissions = append(p.Submissions, queueItem{
			QueueEntry: e, Link: "/review/submissions/" + url.PathEscape(e.ID), Age: age(e.CreatedAt, now), Origin: originOf(e.Submission),
		})
	}
	// The links carry the filters and order in effect, and the status
	// even when it is "all": without one the queue shows the pending
	// submissions.
	links := url.Values{}
	for k, val := range map[string]string{"status": string(f.Status), "verdict": string(f.Verdict), "source": string(f.Source), "sort": string(f.Order)} {
		if val != "" {
			links.Set(k, val)
		}
	}
	if f.Status == "" {
		links.Set("status", "all")
	}
	if next != "" {
		p.Next = "/review?" + keep(links, queueParams, "cursor", next)
	}
	if q.Get("cursor") != "" {
		p.First = "/review?" + keep(links, queueParams, "", "")
	}
	v.Data = p
	h.render(w, r, http.StatusOK, "queue", v)
	return nil
}

// selectOne returns opts with the one whose value is selected marked,
// and calls set with that value when one matches.
func selectOne(opts []option, selected string, set func(string)) []option {
	out := make([]option, len(opts))
	for i, o := range opts {
		o.Selected = o.Value == selected
		if o.Selected {
			set(o.Value)
		}
		out[i] = o
	}
	return out
}
