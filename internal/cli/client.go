package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/sonde-trace/sonde/internal/api"
)

// client talks to sonded's API.
type client struct {
	base           string // the analytics service: root + api.Prefix
	root           string // http[s]://HOST:PORT
	token          string
	user, password string
	hc             *http.Client
}

// newClient makes a client of the API at base (http[s]://HOST:PORT).
func newClient(base, token, user, password string) (*client, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("bad -url %q: want http://HOST:PORT or https://HOST:PORT", base)
	}
	root := strings.TrimRight(base, "/")
	return &client{base: root + api.Prefix, root: root, token: token, user: user, password: password,
		hc: &http.Client{Timeout: 0}}, nil
}

// apiError is an answer's fault.
type apiError struct {
	Fault struct {
		Code    int    `json:"code"`
		Name    string `json:"name"`
		Details string `json:"details"`
	} `json:"fault"`
}

// do sends a request to path (under the service's prefix) with body as
// JSON, and decodes the answer into out (a *[]byte takes it raw).
func (c *client) do(method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		return fmt.Errorf("request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	switch {
	case c.token != "":
		req.Header.Set("Authorization", "Bearer "+c.token)
	case c.user != "":
		req.SetBasicAuth(c.user, c.password)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("cannot reach sonded (is it running?): %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("reading the answer: %w", err)
	}
	if resp.StatusCode >= 400 {
		var ae apiError
		if json.Unmarshal(b, &ae) == nil && ae.Fault.Code != 0 {
			return fmt.Errorf("%s", ae.Fault.Details)
		}
		return fmt.Errorf("%s %s: %s", method, path, resp.Status)
	}
	switch o := out.(type) {
	case nil:
		return nil
	case *[]byte:
		*o = b
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("bad answer from sonded: %w", err)
	}
	return nil
}

// service is the client of another service of the agent's, at prefix
// ("/api/alert/v1").
func (c *client) service(prefix string) *client {
	cc := *c
	cc.base = c.root + prefix
	return &cc
}

// datasetPath is a dataset's path under the prefix.
func datasetPath(name string) string {
	return "/datasets/" + url.PathEscape(name)
}

// dataset is what the CLI reads of a dataset.
type dataset struct {
	Dataset string `json:"dataset"`
	Name    string `json:"name"`
	State   string `json:"state"`
	Incore  int64  `json:"incore"`
	Size    int64  `json:"size"`
}

// datasets lists the datasets.
func (c *client) datasets() ([]dataset, error) {
	var out struct{ Datasets []dataset }
	err := c.do("GET", "/datasets", nil, &out)
	return out.Datasets, err
}

// resolve turns a dataset-NNN id into its name; names pass as they are.
func (c *client) resolve(name string) (string, error) {
	if !isID(name) {
		return name, nil
	}
	ds, err := c.datasets()
	if err != nil {
		return "", err
	}
	for _, d := range ds {
		if d.Dataset == name {
			return d.Name, nil
		}
	}
	return "", fmt.Errorf("no dataset %s", name)
}

func isID(s string) bool {
	n, ok := strings.CutPrefix(s, "dataset-")
	return ok && n != "" && strings.Trim(n, "0123456789") == ""
}
