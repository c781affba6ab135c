// Package api holds the HTTP API's documents: openapi.yaml, the OpenAPI 3
// description of sonded's analytics service, which internal/api serves.
package api

import _ "embed"

// OpenAPI is openapi.yaml.
//
//go:embed openapi.yaml
var OpenAPI []byte
