package alert

import (
	"context"
	"net/url"
	"sort"
	"strings"
	"time"
)

// Handlers of action items.
const (
	Email          = "email"
	Syslog         = "syslog"
	Webhook        = "webhook"
	ResumeDataset  = "resume_dataset"
	SuspendDataset = "suspend_dataset"
	Alertmanager   = "alertmanager"
)

// handlerNames are the handlers, as errors list them.
var handlerNames = []string{Email, Syslog, Webhook, Alertmanager, SNMPTrap, ResumeDataset, SuspendDataset, Capture}

// CategoryThresholds is the one category of actions here: those of a
// threshold's alerts.
const CategoryThresholds = "thresholds"

// Action is the appliance's alert action: a category (thresholds), the
// threshold it answers and its items.
type Action struct {
	ID          string `json:"uuid"`
	Href        string `json:"href,omitempty"`
	Category    string `json:"category"`
	ThresholdID string `json:"thresholdid"`
	Items       []Item `json:"items"`
}

// Item is one thing an action does. Which fields count depends on its
// handler.
type Item struct {
	ID      string `json:"uuid"`
	Handler string `json:"handler"`
	// Post and Clear: run when the alert posts (and re-notifies), and
	// when it clears. Neither given means post only.
	Post  bool `json:"post"`
	Clear bool `json:"clear"`
	// email: the recipient, the subject's beginning (default "sonde
	// alert"), the SMTP server (host:port, default 127.0.0.1:25), the
	// sender, STARTTLS ("auto": when offered, "require", "never") and a
	// file holding "user password" for SMTP AUTH.
	Address  string `json:"address,omitempty"`
	Subject  string `json:"subject,omitempty"`
	Server   string `json:"server,omitempty"`
	From     string `json:"from,omitempty"`
	StartTLS string `json:"starttls,omitempty"`
	AuthFile string `json:"auth_file,omitempty"`
	// TLSCA: a PEM file of the certificate authorities trusted for the
	// server's certificate (default: the system's).
	TLSCA string `json:"tls_ca,omitempty"`
	// webhook: the URL JSON is POSTed to.
	URL string `json:"url,omitempty"`
	// syslog: a unix datagram socket's path ("/dev/log") or
	// udp://host:port; the facility (default daemon).
	Destination string `json:"destination,omitempty"`
	Facility    string `json:"facility,omitempty"`
	// resume_dataset, suspend_dataset: the dataset.
	Dataset string `json:"dataset,omitempty"`
	// alertmanager: URL is Alertmanager's base URL (http://HOST:9093);
	// Labels are added to the alert's own; Resend is how often, in
	// seconds, a posted alert is sent again (default 60: shorter than
	// Alertmanager's resolve_timeout, 5 minutes by default).
	Labels map[string]string `json:"labels,omitempty"`
	Resend int64             `json:"resend,omitempty"`
	// snmp_trap: Destination is the manager's HOST[:PORT] (162);
	// SNMPVersion "2c" (the default) with a Community (public), or "3"
	// with AuthFile holding "USER [AUTHPASS [PRIVPASS]]", the protocols
	// (none: noAuthNoPriv) and the engine ID (hex; default sonded's).
	SNMPVersion  string `json:"snmp_version,omitempty"`
	Community    string `json:"community,omitempty"`
	AuthProtocol string `json:"auth_protocol,omitempty"`
	PrivProtocol string `json:"priv_protocol,omitempty"`
	EngineID     string `json:"engine_id,omitempty"`
	// capture: the D program (default: stacks at 997 Hz of the offending
	// process) and how long it runs, in seconds (default 10).
	Program string `json:"program,omitempty"`
	Seconds int64  `json:"seconds,omitempty"`
	// Timeout of one attempt and retries after a failure (defaults: the
	// engine's).
	Timeout int64 `json:"timeout,omitempty"`
	Retries *int  `json:"retries,omitempty"`
}

// Notice is what an action says: the alert, its statistic and value.
type Notice struct {
	What      string    `json:"what"` // post, renotify, clear, test
	Event     string    `json:"event,omitempty"`
	Threshold string    `json:"threshold"`
	Statname  string    `json:"statname"`
	Key       []string  `json:"key,omitempty"`
	Value     float64   `json:"value"`
	Limit     float64   `json:"limit"`
	Type      string    `json:"type"`
	Time      time.Time `json:"time"`
	// Posted is when the alert posted (for a clear, a re-notification).
	Posted time.Time `json:"posted,omitzero"`
	Host   string    `json:"host,omitempty"`
	Link   string    `json:"link,omitempty"`
}

// Event is an alert: when it posted and cleared, its values, and what
// each action did.
type Event struct {
	ID            string    `json:"uuid"`
	seq           uint64    // its key in the store
	Threshold     string    `json:"threshold"`
	Statname      string    `json:"statname"`
	Key           []string  `json:"key,omitempty"`
	Type          string    `json:"type"`
	Limit         float64   `json:"limit"`
	State         string    `json:"state"` // posted, cleared, test
	Posted        time.Time `json:"posted"`
	Value         float64   `json:"value"`
	Cleared       time.Time `json:"cleared,omitzero"`
	ClearValue    float64   `json:"clear_value,omitempty"`
	Notifications int       `json:"notifications"`
	// Notified is when it last posted or re-notified.
	Notified time.Time `json:"notified,omitzero"`
	// Silenced lists the steps (post, renotify, clear) whose actions a
	// silence held back.
	Silenced []string  `json:"silenced,omitempty"`
	Attempts []Attempt `json:"attempts,omitempty"`
	// Captures are what the capture items found when it posted.
	Captures []CaptureInfo `json:"captures,omitempty"`
}

func (ev *Event) copy() Event {
	c := *ev
	c.Key = append([]string(nil), ev.Key...)
	c.Silenced = append([]string(nil), ev.Silenced...)
	c.Attempts = append([]Attempt(nil), ev.Attempts...)
	c.Captures = append([]CaptureInfo(nil), ev.Captures...)
	return c
}

// Attempt is one try of one action item.
type Attempt struct {
	Action    string    `json:"action"` // the action's uuid
	Item      string    `json:"item"`   // the item's uuid
	Handler   string    `json:"handler"`
	What      string    `json:"what"` // post, renotify, clear, test
	Attempt   int       `json:"attempt"`
	Time      time.Time `json:"time"`
	Delivered bool      `json:"delivered"`
	Error     string    `json:"error,omitempty"`
}

// run is one item to run for one notice.
type run struct {
	action string
	item   Item
	n      Notice
	// quiet: an attempt is recorded only when it fails (resends).
	quiet bool
}

// runsFor lists the items of threshold id's actions that run on step
// (e.mu held).
func (e *Engine) runsFor(id string, step Step, n Notice) []run {
	var runs []run
	for _, a := range e.sortedActions() {
		if a.ThresholdID != id {
			continue
		}
		for _, it := range a.Items {
			if it.Handler == Capture && step == Renotify {
				continue // a capture is of the alert's start
			}
			if (step == Clear && it.Clear) || (step != Clear && it.Post) {
				runs = append(runs, run{action: a.ID, item: it, n: n})
			}
		}
	}
	return runs
}

func (e *Engine) sortedActions() []*Action {
	out := make([]*Action, 0, len(e.actions))
	for _, a := range e.actions {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// start runs r in its own goroutine.
func (e *Engine) start(r run) {
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		e.deliver(e.ctx, r)
	}()
}

// deliver tries r until it is delivered or its retries are spent,
// recording each attempt in the event.
func (e *Engine) deliver(ctx context.Context, r run) []Attempt {
	h, err := e.handler(r.action, r.item)
	retries := e.cfg.Retries
	if r.item.Retries != nil {
		retries = max(*r.item.Retries, 0)
	}
	timeout := e.cfg.Timeout
	if r.item.Timeout > 0 {
		timeout = seconds(r.item.Timeout)
	}
	if r.item.Handler == Capture {
		timeout += seconds(r.item.Seconds) // the timeout is the capture's start's and end's
	}
	backoff := e.cfg.Backoff
	var out []Attempt
	for i := 1; ; i++ {
		if err == nil {
			actx, cancel := context.WithTimeout(ctx, timeout)
			err = h.send(actx, r.n)
			cancel()
		}
		a := Attempt{Action: r.action, Item: r.item.ID, Handler: r.item.Handler, What: r.n.What, Attempt: i,
			Time: e.cfg.Now().UTC(), Delivered: err == nil}
		if err != nil {
			a.Error = err.Error()
			e.cfg.Logf("alert: %s %s of %s (attempt %d): %v", r.item.Handler, r.n.What, r.n.Statname, i, err)
		}
		out = append(out, a)
		if !r.quiet || err != nil {
			e.record(r.n.Event, a)
		}
		if err == nil || i > retries {
			return out
		}
		select {
		case <-ctx.Done():
			return out
		case <-time.After(backoff):
		}
		backoff *= 2
		h, err = e.handler(r.action, r.item)
	}
}

// record adds an attempt to its event and keeps the event.
func (e *Engine) record(id string, a Attempt) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := len(e.events) - 1; i >= 0; i-- {
		if ev := e.events[i]; ev.ID == id {
			ev.Attempts = append(ev.Attempts, a)
			e.saveEvent(ev)
			return
		}
	}
}

// Actions lists the actions.
func (e *Engine) Actions() []Action {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := []Action{}
	for _, a := range e.sortedActions() {
		out = append(out, a.copy())
	}
	return out
}

func (a *Action) copy() Action {
	c := *a
	c.Items = append([]Item{}, a.Items...)
	return c
}

// Action returns one action.
func (e *Engine) Action(id string) (Action, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	a := e.actions[id]
	if a == nil {
		return Action{}, notFound("action", id)
	}
	return a.copy(), nil
}

// CreateAction adds an action of category thresholds for a threshold,
// with its items if given.
func (e *Engine) CreateAction(a Action) (Action, error) {
	if a.Category == "" {
		a.Category = CategoryThresholds
	}
	if a.Category != CategoryThresholds {
		return Action{}, badf("category %q: only %q is supported", a.Category, CategoryThresholds)
	}
	if _, err := e.Threshold(a.ThresholdID); err != nil {
		return Action{}, badf("thresholdid %q: no such threshold", a.ThresholdID)
	}
	for i := range a.Items {
		if err := e.checkItem(&a.Items[i]); err != nil {
			return Action{}, err
		}
		a.Items[i].ID = newID()
	}
	if a.Items == nil {
		a.Items = []Item{}
	}
	a.ID, a.Href = newID(), ""
	e.mu.Lock()
	defer e.mu.Unlock()
	e.actions[a.ID] = &a
	e.put(keyAction+a.ID, a)
	return a.copy(), nil
}

// UpdateAction changes which threshold an action answers.
func (e *Engine) UpdateAction(id, thresholdID string) (Action, error) {
	if _, err := e.Threshold(thresholdID); err != nil {
		return Action{}, badf("thresholdid %q: no such threshold", thresholdID)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	a := e.actions[id]
	if a == nil {
		return Action{}, notFound("action", id)
	}
	a.ThresholdID = thresholdID
	e.put(keyAction+id, a)
	return a.copy(), nil
}

// DeleteAction removes an action and its items.
func (e *Engine) DeleteAction(id string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.actions[id] == nil {
		return notFound("action", id)
	}
	delete(e.actions, id)
	return e.cfg.Meta.DeleteMeta(keyAction + id)
}

// AddItem adds an item to an action.
func (e *Engine) AddItem(id string, it Item) (Item, error) {
	if err := e.checkItem(&it); err != nil {
		return Item{}, err
	}
	it.ID = newID()
	e.mu.Lock()
	defer e.mu.Unlock()
	a := e.actions[id]
	if a == nil {
		return Item{}, notFound("action", id)
	}
	a.Items = append(a.Items, it)
	e.put(keyAction+id, a)
	return it, nil
}

// Item returns one item of an action.
func (e *Engine) Item(id, item string) (Item, error) {
	a, err := e.Action(id)
	if err != nil {
		return Item{}, err
	}
	for _, it := range a.Items {
		if it.ID == item {
			return it, nil
		}
	}
	return Item{}, notFound("action item", item)
}

// UpdateItem replaces an item's settings.
func (e *Engine) UpdateItem(id, item string, update func(*Item) error) (Item, error) {
	cur, err := e.Item(id, item)
	if err != nil {
		return Item{}, err
	}
	it := cur
	if err := update(&it); err != nil {
		return Item{}, err
	}
	it.ID = cur.ID
	if err := e.checkItem(&it); err != nil {
		return Item{}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	a := e.actions[id]
	if a == nil {
		return Item{}, notFound("action", id)
	}
	for i := range a.Items {
		if a.Items[i].ID == item {
			a.Items[i] = it
			e.put(keyAction+id, a)
			return it, nil
		}
	}
	return Item{}, notFound("action item", item)
}

// DeleteItem removes an item.
func (e *Engine) DeleteItem(id, item string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	a := e.actions[id]
	if a == nil {
		return notFound("action", id)
	}
	for i := range a.Items {
		if a.Items[i].ID == item {
			a.Items = append(a.Items[:i], a.Items[i+1:]...)
			e.put(keyAction+id, a)
			return nil
		}
	}
	return notFound("action item", item)
}

// Test sends a test alert through one item, waits for it (retries
// included) and returns the event that records its attempts.
func (e *Engine) Test(id, item string) (Event, error) {
	it, err := e.Item(id, item)
	if err != nil {
		return Event{}, err
	}
	a, _ := e.Action(id)
	t, err := e.Threshold(a.ThresholdID)
	if err != nil {
		return Event{}, err
	}
	now := e.cfg.Now().UTC()
	e.mu.Lock()
	ev := e.newEvent(&t, nil, 0, now)
	ev.State, ev.Notifications = "test", 0
	e.saveEvent(ev)
	e.mu.Unlock()
	n := e.notice(&t, ev, "test", nil, 0, now)
	e.deliver(e.ctx, run{action: id, item: it, n: n})
	return e.Event(ev.ID)
}

// checkItem validates an item (its handler and what the handler needs).
func (e *Engine) checkItem(it *Item) error {
	if !it.Post && !it.Clear {
		it.Post = true
	}
	if it.Timeout < 0 || (it.Retries != nil && *it.Retries < 0) {
		return badf("timeout and retries are not negative")
	}
	switch it.Handler {
	case Webhook:
		u, err := url.Parse(it.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return badf("webhook: url %q: want http(s)://HOST/PATH", it.URL)
		}
	case Alertmanager:
		return e.checkAlertmanager(it)
	case SNMPTrap:
		return checkSNMP(it)
	case Capture:
		return e.checkCapture(it)
	case Email:
		return checkEmail(it)
	case Syslog:
		if _, _, err := syslogTarget(it.Destination); err != nil {
			return badf("syslog: %v", err)
		}
		if _, err := facility(it.Facility); err != nil {
			return badf("syslog: %v", err)
		}
	case ResumeDataset, SuspendDataset:
		ds, err := e.cfg.Datasets.Dataset(it.Dataset)
		if err != nil {
			return badf("%s: dataset %q: no such dataset", it.Handler, it.Dataset)
		}
		it.Dataset = ds.Name
	case "":
		return badf("an action item needs a handler: %s", strings.Join(handlerNames, ", "))
	default:
		return badf("handler %q: want %s", it.Handler, strings.Join(handlerNames, ", "))
	}
	return nil
}
