package api

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Serve listens on addr and serves h until ctx is done, over TLS when a
// certificate and key are given (both or neither). Requests through a
// loopback address need no credentials; through any other, they do.
func Serve(ctx context.Context, addr string, h http.Handler, certFile, keyFile string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	return ServeListener(ctx, ln, h, certFile, keyFile)
}

// ServeListener serves h on ln until ctx is done (then it shuts down,
// ending the requests waiting for data), as Serve does. It closes ln.
func ServeListener(ctx context.Context, ln net.Listener, h http.Handler, certFile, keyFile string) error {
	srv := &http.Server{
		Handler:           h,
		ConnContext:       ConnContext(ln),
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ReadHeaderTimeout: 10 * time.Second,
	}
	if certFile != "" || keyFile != "" {
		cfg, err := tlsConfig(certFile, keyFile)
		if err != nil {
			ln.Close()
			return err
		}
		ln = tls.NewListener(ln, cfg)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := srv.Shutdown(sctx)
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

// tlsConfig loads a certificate and its key.
func tlsConfig(certFile, keyFile string) (*tls.Config, error) {
	if certFile == "" || keyFile == "" {
		return nil, errors.New("tls: both a certificate and a key are needed")
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("tls: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// Mount serves the requests of each route — its path, and the paths under
// it — with its handler behind the API's Guard (sonded's alert service at
// /api/alert/v1, its /metrics), and every other request with the API, or
// with the route "/" when given: a handler that serves the API itself
// among its own paths and guards what it adds (ui.WithAPI).
func (h *Handler) Mount(routes map[string]http.Handler) http.Handler {
	mux := http.NewServeMux()
	var rest http.Handler = h
	for prefix, next := range routes {
		if prefix == "/" {
			rest = next
			continue
		}
		guarded := h.Guard(next)
		mux.Handle(prefix, guarded)
		mux.Handle(prefix+"/", guarded)
	}
	mux.Handle("/", rest)
	return mux
}
