package alert

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// DefaultResend is how often a posted alert is sent to Alertmanager again,
// in seconds: Alertmanager forgets an alert whose endsAt has passed, and
// sonded sets endsAt to four resend intervals ahead, as Prometheus does.
const DefaultResend = 60

// amLabel is a Prometheus label name.
var amLabel = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// checkAlertmanager validates an alertmanager item and asks the
// Alertmanager for its status, so that a wrong or unreachable URL is the
// caller's error now rather than a failed delivery later.
func (e *Engine) checkAlertmanager(it *Item) error {
	u, err := url.Parse(it.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return badf("alertmanager: url %q: want http(s)://HOST:PORT (Alertmanager's base URL)", it.URL)
	}
	it.URL = strings.TrimRight(it.URL, "/")
	if it.Resend < 0 {
		return badf("alertmanager: resend is seconds, not negative (got %d)", it.Resend)
	}
	if it.Resend == 0 {
		it.Resend = DefaultResend
	}
	for k := range it.Labels {
		if !amLabel.MatchString(k) || strings.HasPrefix(k, "__") {
			return badf("alertmanager: label %q: want a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*, not starting with __)", k)
		}
	}
	ctx, cancel := context.WithTimeout(e.ctx, e.cfg.CheckTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, it.URL+"/api/v2/status", nil)
	if err != nil {
		return badf("alertmanager: url %q: %v", it.URL, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return badf("alertmanager: %s is unreachable: %v", it.URL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return badf("alertmanager: %s/api/v2/status answered %s: is it an Alertmanager (API v2)?", it.URL, resp.Status)
	}
	return nil
}

// amAlert is an alert as Alertmanager's API v2 takes it (postableAlert).
type amAlert struct {
	StartsAt     time.Time         `json:"startsAt"`
	EndsAt       time.Time         `json:"endsAt"`
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations"`
	GeneratorURL string            `json:"generatorURL,omitempty"`
}

// alertmanagerSender POSTs the alert to /api/v2/alerts.
type alertmanagerSender struct {
	it  Item
	now func() time.Time
}

// amLabels are the alert's labels: what identifies it to Alertmanager
// (the threshold and the key), and the item's own labels.
func amLabels(it Item, n Notice) map[string]string {
	l := map[string]string{"alertname": "SondeThreshold", "statname": n.Statname, "threshold": n.Threshold,
		"severity": "warning", "job": "sonded"}
	if n.What == "test" {
		l["alertname"] = "SondeTest"
	}
	if n.Host != "" {
		l["instance"] = n.Host
	}
	if len(n.Key) > 0 {
		l["key"] = strings.Join(n.Key, ",")
	}
	for k, v := range it.Labels {
		l[k] = v
	}
	return l
}

// amAlertOf is the notice as an alert. A posted alert (post, renotify,
// resend) ends four resend intervals from now unless it is sent again; a
// cleared one ends when it cleared; a test ends after one interval.
func amAlertOf(it Item, n Notice, now time.Time) amAlert {
	every := seconds(it.Resend)
	if every <= 0 {
		every = seconds(DefaultResend)
	}
	a := amAlert{StartsAt: n.Posted, Labels: amLabels(it, n), GeneratorURL: n.Link, Annotations: map[string]string{
		"summary": subject(n), "description": body(n), "value": strconv.FormatFloat(n.Value, 'g', -1, 64),
		"limit": strconv.FormatFloat(n.Limit, 'g', -1, 64), "event": n.Event}}
	if a.StartsAt.IsZero() {
		a.StartsAt = n.Time
	}
	switch n.What {
	case "clear":
		a.EndsAt = n.Time
	case "test":
		a.StartsAt, a.EndsAt = now, now.Add(every)
	default:
		a.EndsAt = now.Add(4 * every)
	}
	a.StartsAt, a.EndsAt = a.StartsAt.UTC(), a.EndsAt.UTC()
	return a
}

func (s alertmanagerSender) send(ctx context.Context, n Notice) error {
	return postJSON(ctx, s.it.URL+"/api/v2/alerts", []amAlert{amAlertOf(s.it, n, s.now())})
}

// resend is a posted alert that an alertmanager item sends again while it
// lasts.
type resend struct {
	r    run
	next time.Time
	busy bool
}

func resendKey(r run) string { return r.action + "/" + r.item.ID + "/" + r.n.Event }

// track keeps the alertmanager items' resends up to date with the runs a
// step starts: a post or re-notification starts resending, a clear stops
// it (e.mu held).
func (e *Engine) track(runs []run) {
	now := e.cfg.Now()
	for _, r := range runs {
		if r.item.Handler != Alertmanager {
			continue
		}
		k := resendKey(r)
		switch r.n.What {
		case string(Post), string(Renotify):
			e.resends[k] = &resend{r: r, next: now.Add(seconds(r.item.Resend))}
		case string(Clear):
			delete(e.resends, k)
		}
	}
}

// untrack stops resending an event's alerts and returns the runs that
// resolve them in Alertmanager (e.mu held): its threshold was deleted or
// changed to watch something else.
func (e *Engine) untrack(event string, at time.Time) []run {
	var runs []run
	for k, rs := range e.resends {
		if rs.r.n.Event != event {
			continue
		}
		delete(e.resends, k)
		r := rs.r
		r.n.What, r.n.Time = string(Clear), at
		runs = append(runs, r)
	}
	return runs
}

// resender sends the posted alerts again when due, until Close. A resend
// that is delivered is not recorded in the event (one a minute for as
// long as the alert lasts would drown the rest); one that fails is.
func (e *Engine) resender() {
	defer e.loops.Done()
	tick := time.NewTicker(e.cfg.ResendTick)
	defer tick.Stop()
	for {
		select {
		case <-e.ctx.Done():
			return
		case <-tick.C:
		}
		now := e.cfg.Now()
		var due []*resend
		e.mu.Lock()
		for k, rs := range e.resends {
			if rs.busy || now.Before(rs.next) {
				continue
			}
			it, ok := e.currentItem(rs.r.action, rs.r.item.ID)
			if !ok || it.Handler != Alertmanager {
				delete(e.resends, k)
				continue
			}
			rs.r.item = it
			rs.busy, rs.next = true, now.Add(seconds(it.Resend))
			due = append(due, rs)
		}
		e.mu.Unlock()
		for _, rs := range due {
			r := rs.r
			r.n.What, r.quiet = "resend", true
			e.loops.Add(1) // not e.wg: the resender holds loops, so this Add never races a Wait from zero
			go func() {
				defer e.loops.Done()
				e.deliver(e.ctx, r)
				e.mu.Lock()
				rs.busy = false
				e.mu.Unlock()
			}()
		}
	}
}

// currentItem is an item as it is now (e.mu held).
func (e *Engine) currentItem(action, item string) (Item, bool) {
	a := e.actions[action]
	if a == nil {
		return Item{}, false
	}
	for _, it := range a.Items {
		if it.ID == item {
			return it, true
		}
	}
	return Item{}, false
}
