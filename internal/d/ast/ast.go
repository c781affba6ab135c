// Package ast declares the syntax tree of a D program. Nodes carry positions
// only; types and resolved symbols live in the checker's side tables
// (check.Info), never on the tree.
package ast

import (
	"strings"

	"github.com/sonde-trace/sonde/internal/d/token"
)

// Node is any syntax tree node.
type Node interface {
	Pos() token.Pos // position of the node's first character
}

// Expr is an expression node.
type Expr interface {
	Node
	exprNode()
}

// Stmt is a statement node.
type Stmt interface {
	Node
	stmtNode()
}

// Decl is a top-level declaration: a probe clause, a pragma, an inline, a
// variable, type or translator declaration, or a provider definition.
type Decl interface {
	Node
	declNode()
}

// Program is one parsed D source (a -s file or one -n argument).
type Program struct {
	File  string
	Decls []Decl
}

// ---------------------------------------------------------------------------
// Expressions

type (
	// BadExpr stands in for an expression that failed to parse.
	BadExpr struct{ At token.Pos }

	// Ident is a name: a variable, a built-in variable, an inline, a
	// function name in a call, or an enumerator.
	Ident struct {
		NamePos token.Pos
		Name    string
	}

	// IntLit is an integer or character constant. Value holds its value;
	// Unsigned/Long record u/l suffixes (and character constants are int).
	IntLit struct {
		ValuePos token.Pos
		Raw      string
		Value    uint64
		Unsigned bool
		Long     int // number of l suffixes: 0, 1 or 2
		IsChar   bool
	}

	// StringLit is a string constant; Value has escapes resolved.
	StringLit struct {
		ValuePos token.Pos
		Raw      string
		Value    string
	}

	// MacroVar is $1..$N, $target, $pid, $ppid, $uid, $gid, $sid ... or
	// the string form $$1. Name excludes the dollars.
	MacroVar struct {
		DollarPos token.Pos
		Name      string
		Quoted    bool // $$N: always a string
	}

	// AggVar is @name, or Name == "" for the anonymous @.
	AggVar struct {
		AtPos token.Pos
		Name  string
	}

	// SelfVar is self->name (thread-local); ThisVar is this->name
	// (clause-local).
	SelfVar struct {
		SelfPos token.Pos
		Name    string
		NamePos token.Pos
	}
	ThisVar struct {
		ThisPos token.Pos
		Name    string
		NamePos token.Pos
	}

	// ParenExpr is (X).
	ParenExpr struct {
		Lparen token.Pos
		X      Expr
		Rparen token.Pos
	}

	// UnaryExpr is a prefix operator: - + ! ~ * & ++ --.
	UnaryExpr struct {
		OpPos token.Pos
		Op    token.Kind
		X     Expr
	}

	// PostfixExpr is X++ or X--.
	PostfixExpr struct {
		X     Expr
		OpPos token.Pos
		Op    token.Kind // INC or DEC
	}

	// BinaryExpr is X Op Y for arithmetic, bitwise, shift, comparison and
	// logical operators (&& || ^^).
	BinaryExpr struct {
		X     Expr
		OpPos token.Pos
		Op    token.Kind
		Y     Expr
	}

	// AssignExpr is X = Y or a compound assignment X op= Y. Aggregation
	// assignments (@a[k] = count()) are AssignExprs too.
	AssignExpr struct {
		X     Expr
		OpPos token.Pos
		Op    token.Kind // ASSIGN, ADD_ASSIGN, ...
		Y     Expr
	}

	// CondExpr is Cond ? X : Y.
	CondExpr struct {
		Cond  Expr
		Quest token.Pos
		X     Expr
		Colon token.Pos
		Y     Expr
	}

	// CallExpr is Fun(Args...), for subroutines, actions and aggregating
	// functions. Fun is almost always an *Ident.
	CallExpr struct {
		Fun    Expr
		Lparen token.Pos
		Args   []Expr
		Rparen token.Pos
	}

	// IndexExpr is X[Index...]: an associative array, an aggregation key
	// tuple, args[N] or an array/pointer subscript.
	IndexExpr struct {
		X       Expr
		Lbrack  token.Pos
		Indices []Expr
		Rbrack  token.Pos
	}

	// SelectorExpr is X.Sel or X->Sel (Arrow true).
	SelectorExpr struct {
		X      Expr
		OpPos  token.Pos
		Arrow  bool
		Sel    string
		SelPos token.Pos
	}

	// CastExpr is (Type)X.
	CastExpr struct {
		Lparen token.Pos
		Type   *TypeName
		X      Expr
	}

	// SizeofExpr is sizeof X or sizeof(Type); exactly one of X and Type is
	// set.
	SizeofExpr struct {
		SizeofPos token.Pos
		X         Expr
		Type      *TypeName
	}

	// StringofExpr is stringof X (also written stringof(X)).
	StringofExpr struct {
		StringofPos token.Pos
		X           Expr
	}

	// OffsetofExpr is offsetof(Type, Member).
	OffsetofExpr struct {
		OffsetofPos token.Pos
		Type        *TypeName
		Member      string
	}

	// XlateExpr is xlate<Type>(X).
	XlateExpr struct {
		XlatePos token.Pos
		Type     *TypeName
		X        Expr
	}
)

// ---------------------------------------------------------------------------
// Types

// TypeName is a type as written: specifier words ("unsigned", "long",
// "int"; or "struct foo"; or a typedef name like "uint64_t" or "string"),
// then pointer stars and array dimensions. Abstract declarators only: the
// declared name, if any, lives on the enclosing declaration.
type TypeName struct {
	TypePos  token.Pos
	Quals    []string // const, volatile, restrict
	Words    []string // e.g. ["unsigned", "long", "long"] or ["uint64_t"]
	Tag      string   // "struct", "union" or "enum" when Words[0] names a tag
	Stars    int      // pointer depth
	Dims     []Expr   // array dimensions, outermost first; nil entry for []
	Userland bool     // the userland qualifier (D's userland pointers)
	Def      Decl     // *StructDecl or *EnumDecl defined in place ("struct foo { ... } x;"), else nil
	// Func, when set, makes the type a function returning the type the
	// fields above describe (a C prototype, "int f(int)"), or a pointer
	// to one ("int (*fp)(int)", Func.Ptr stars).
	Func *FuncSig
}

// FuncSig is the parameter list of a function declarator.
type FuncSig struct {
	Params   []*Field
	Variadic bool // ", ..." ends the list
	Ptr      int  // pointers to the function: the stars of "(*name)"
}

// Spelling is the type as written, without its array dimensions, words
// separated by single spaces: "userland const struct foo **".
func (t *TypeName) Spelling() string {
	var parts []string
	if t.Userland {
		parts = append(parts, "userland")
	}
	parts = append(parts, t.Quals...)
	if t.Tag != "" {
		parts = append(parts, t.Tag)
	}
	parts = append(parts, t.Words...)
	s := strings.Join(parts, " ")
	if t.Stars > 0 {
		s += " " + strings.Repeat("*", t.Stars)
	}
	return s
}

// ---------------------------------------------------------------------------
// Statements

type (
	// BadStmt stands in for a statement that failed to parse.
	BadStmt struct{ At token.Pos }

	// EmptyStmt is a lone ;.
	EmptyStmt struct{ Semi token.Pos }

	// ExprStmt is an expression (usually an action call or assignment)
	// followed by ; or the closing brace of the clause.
	ExprStmt struct{ X Expr }

	// BlockStmt is { Stmts }.
	BlockStmt struct {
		Lbrace token.Pos
		Stmts  []Stmt
		Rbrace token.Pos
	}

	// IfStmt is if (Cond) Then [else Else]; Else is an *IfStmt, a
	// *BlockStmt or any statement.
	IfStmt struct {
		IfPos token.Pos
		Cond  Expr
		Then  Stmt
		Else  Stmt
	}

	// DeclStmt is a clause-local declaration: this int x; (rare).
	DeclStmt struct{ Decl *VarDecl }
)

// ---------------------------------------------------------------------------
// Declarations

type (
	// BadDecl stands in for a declaration that failed to parse.
	BadDecl struct{ At token.Pos }

	// ProbeDesc is one probe description as written (after macro
	// expansion): provider:module:function:name with omitted leading
	// fields, e.g. "syscall::read:entry", "BEGIN", "profile-997".
	ProbeDesc struct {
		DescPos  token.Pos
		Text     string // as written, e.g. "syscall::read:entry"
		Provider string // split fields; empty means "any" (like *)
		Module   string
		Function string
		Name     string
	}

	// ProbeClause is probe-descriptions [/ predicate /] { statements }.
	ProbeClause struct {
		Probes []*ProbeDesc
		Pred   Expr // nil when there is no predicate
		Body   *BlockStmt
	}

	// PragmaDecl is #pragma D <Kind> args..., e.g. Kind "option" with
	// Args ["quiet"] or ["bufsize=4m"], "depends_on" ["library", "net.d"],
	// "attributes", "binding". Non-D pragmas are kept with Kind "" and the
	// raw text in Args.
	PragmaDecl struct {
		PragmaPos token.Pos
		Kind      string
		Args      []string
	}

	// InlineDecl is inline Type Name = Value;.
	InlineDecl struct {
		InlinePos token.Pos
		Type      *TypeName
		Name      string
		NamePos   token.Pos
		Value     Expr
		Params    []*Field // inline Type Name[type param, ...] = ...; nil if none
	}

	// VarDecl declares variables: [self|this] [static|extern] Type Name
	// [ [keytypes] ] ;. Scope is "" (global), "self" or "this". KeyTypes is
	// non-nil for associative arrays (int a[string, int];).
	VarDecl struct {
		DeclPos  token.Pos
		Scope    string
		Class    string // storage class: "", "static", "extern", "register" or "auto"
		Type     *TypeName
		Name     string
		NamePos  token.Pos
		KeyTypes []*TypeName
	}

	// Field is a member of a struct or union declaration, or a parameter.
	Field struct {
		Type    *TypeName
		Name    string
		NamePos token.Pos
		Bits    Expr // bit-field width or nil
	}

	// StructDecl is struct|union Name { Fields };.
	StructDecl struct {
		StructPos token.Pos
		Union     bool
		Name      string
		Fields    []*Field
	}

	// EnumDecl is enum Name { A = 1, B, ... };.
	EnumDecl struct {
		EnumPos token.Pos
		Name    string
		Names   []string
		Values  []Expr // nil entry when no explicit value
	}

	// TypedefDecl is typedef Type Name;.
	TypedefDecl struct {
		TypedefPos token.Pos
		Type       *TypeName
		Name       string
	}

	// TranslatorDecl is translator Output < Input Param > { member = expr; ... };.
	TranslatorDecl struct {
		TranslatorPos token.Pos
		Output        *TypeName
		Input         *TypeName
		Param         string
		Members       []*TranslatorMember
	}
	TranslatorMember struct {
		Name    string
		NamePos token.Pos
		Value   Expr
	}

	// ProviderDecl is provider name { probe p(args) [: (xargs)]; ... };.
	ProviderDecl struct {
		ProviderPos token.Pos
		Name        string
		Probes      []*ProbeDef
	}
	ProbeDef struct {
		ProbePos  token.Pos
		Name      string // as written: request__start
		Args      []*Field
		XlateArgs []*Field // nil when there is no ": (...)" part
	}
)

// ---------------------------------------------------------------------------
// Pos and marker methods

func (x *BadExpr) Pos() token.Pos      { return x.At }
func (x *Ident) Pos() token.Pos        { return x.NamePos }
func (x *IntLit) Pos() token.Pos       { return x.ValuePos }
func (x *StringLit) Pos() token.Pos    { return x.ValuePos }
func (x *MacroVar) Pos() token.Pos     { return x.DollarPos }
func (x *AggVar) Pos() token.Pos       { return x.AtPos }
func (x *SelfVar) Pos() token.Pos      { return x.SelfPos }
func (x *ThisVar) Pos() token.Pos      { return x.ThisPos }
func (x *ParenExpr) Pos() token.Pos    { return x.Lparen }
func (x *UnaryExpr) Pos() token.Pos    { return x.OpPos }
func (x *PostfixExpr) Pos() token.Pos  { return x.X.Pos() }
func (x *BinaryExpr) Pos() token.Pos   { return x.X.Pos() }
func (x *AssignExpr) Pos() token.Pos   { return x.X.Pos() }
func (x *CondExpr) Pos() token.Pos     { return x.Cond.Pos() }
func (x *CallExpr) Pos() token.Pos     { return x.Fun.Pos() }
func (x *IndexExpr) Pos() token.Pos    { return x.X.Pos() }
func (x *SelectorExpr) Pos() token.Pos { return x.X.Pos() }
func (x *CastExpr) Pos() token.Pos     { return x.Lparen }
func (x *SizeofExpr) Pos() token.Pos   { return x.SizeofPos }
func (x *StringofExpr) Pos() token.Pos { return x.StringofPos }
func (x *OffsetofExpr) Pos() token.Pos { return x.OffsetofPos }
func (x *XlateExpr) Pos() token.Pos    { return x.XlatePos }

func (*BadExpr) exprNode()      {}
func (*Ident) exprNode()        {}
func (*IntLit) exprNode()       {}
func (*StringLit) exprNode()    {}
func (*MacroVar) exprNode()     {}
func (*AggVar) exprNode()       {}
func (*SelfVar) exprNode()      {}
func (*ThisVar) exprNode()      {}
func (*ParenExpr) exprNode()    {}
func (*UnaryExpr) exprNode()    {}
func (*PostfixExpr) exprNode()  {}
func (*BinaryExpr) exprNode()   {}
func (*AssignExpr) exprNode()   {}
func (*CondExpr) exprNode()     {}
func (*CallExpr) exprNode()     {}
func (*IndexExpr) exprNode()    {}
func (*SelectorExpr) exprNode() {}
func (*CastExpr) exprNode()     {}
func (*SizeofExpr) exprNode()   {}
func (*StringofExpr) exprNode() {}
func (*OffsetofExpr) exprNode() {}
func (*XlateExpr) exprNode()    {}

func (s *BadStmt) Pos() token.Pos   { return s.At }
func (s *EmptyStmt) Pos() token.Pos { return s.Semi }
func (s *ExprStmt) Pos() token.Pos  { return s.X.Pos() }
func (s *BlockStmt) Pos() token.Pos { return s.Lbrace }
func (s *IfStmt) Pos() token.Pos    { return s.IfPos }
func (s *DeclStmt) Pos() token.Pos  { return s.Decl.Pos() }

func (*BadStmt) stmtNode()   {}
func (*EmptyStmt) stmtNode() {}
func (*ExprStmt) stmtNode()  {}
func (*BlockStmt) stmtNode() {}
func (*IfStmt) stmtNode()    {}
func (*DeclStmt) stmtNode()  {}

func (d *BadDecl) Pos() token.Pos        { return d.At }
func (d *ProbeDesc) Pos() token.Pos      { return d.DescPos }
func (d *ProbeClause) Pos() token.Pos    { return d.Probes[0].DescPos }
func (d *PragmaDecl) Pos() token.Pos     { return d.PragmaPos }
func (d *InlineDecl) Pos() token.Pos     { return d.InlinePos }
func (d *VarDecl) Pos() token.Pos        { return d.DeclPos }
func (d *StructDecl) Pos() token.Pos     { return d.StructPos }
func (d *EnumDecl) Pos() token.Pos       { return d.EnumPos }
func (d *TypedefDecl) Pos() token.Pos    { return d.TypedefPos }
func (d *TranslatorDecl) Pos() token.Pos { return d.TranslatorPos }
func (d *ProviderDecl) Pos() token.Pos   { return d.ProviderPos }

func (*BadDecl) declNode()        {}
func (*ProbeDesc) declNode()      {}
func (*ProbeClause) declNode()    {}
func (*PragmaDecl) declNode()     {}
func (*InlineDecl) declNode()     {}
func (*VarDecl) declNode()        {}
func (*StructDecl) declNode()     {}
func (*EnumDecl) declNode()       {}
func (*TypedefDecl) declNode()    {}
func (*TranslatorDecl) declNode() {}
func (*ProviderDecl) declNode()   {}
