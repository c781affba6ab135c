package check

import "github.com/sonde-trace/sonde/internal/d/ast"

// checkFormat validates a printf-style format against its arguments. It is
// filled in once the format package's parser is available.
func (c *checker) checkFormat(x *ast.CallExpr, i int) {}
