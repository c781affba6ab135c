// Package token defines the lexical tokens of the D language and source
// positions. It is shared by the scanner, the parser and every later pass.
package token

import "fmt"

// Pos is a position in a D source file. Line and Col are 1-based; Col counts
// bytes. The zero Pos is "no position".
type Pos struct {
	File   string
	Offset int
	Line   int
	Col    int
}

// IsValid reports whether p carries a position.
func (p Pos) IsValid() bool { return p.Line > 0 }

// String formats p as file:line:col.
func (p Pos) String() string {
	if !p.IsValid() {
		if p.File != "" {
			return p.File
		}
		return "-"
	}
	f := p.File
	if f == "" {
		f = "<input>"
	}
	return fmt.Sprintf("%s:%d:%d", f, p.Line, p.Col)
}

// Kind is the kind of a token.
type Kind int

// Token kinds.
const (
	ILLEGAL Kind = iota
	EOF
	COMMENT

	literalBeg
	IDENT     // main
	INT       // 12345, 0x1f, 017, 10ull
	CHAR      // 'a'
	STRING    // "abc"
	MACRO     // $1, $target, $pid, $$1
	AGG       // @name or bare @
	PROBEDESC // syscall::read:entry (scanned in probe-description context)
	literalEnd

	operatorBeg
	ADD // +
	SUB // -
	MUL // *
	QUO // /
	REM // %

	AND // &
	OR  // |
	XOR // ^
	SHL // <<
	SHR // >>

	ADD_ASSIGN // +=
	SUB_ASSIGN // -=
	MUL_ASSIGN // *=
	QUO_ASSIGN // /=
	REM_ASSIGN // %=
	AND_ASSIGN // &=
	OR_ASSIGN  // |=
	XOR_ASSIGN // ^=
	SHL_ASSIGN // <<=
	SHR_ASSIGN // >>=

	LAND // &&
	LOR  // ||
	LXOR // ^^
	INC  // ++
	DEC  // --

	EQL    // ==
	LSS    // <
	GTR    // >
	ASSIGN // =
	NOT    // !
	TILDE  // ~

	NEQ // !=
	LEQ // <=
	GEQ // >=

	LPAREN // (
	LBRACK // [
	LBRACE // {
	COMMA  // ,
	PERIOD // .
	ARROW  // ->
	RPAREN // )
	RBRACK // ]
	RBRACE // }
	SEMI   // ;
	COLON  // :
	QUEST  // ?
	ELLIPSIS
	BACKQUOTE // `
	operatorEnd

	keywordBeg
	AUTO
	BREAK
	CASE
	CHAR_KW
	CONST
	CONTINUE
	COUNTER
	DEFAULT
	DO
	DOUBLE
	ELSE
	ENUM
	EXTERN
	FLOAT
	FOR
	GOTO
	IF
	IMPORT
	INLINE
	INT_KW
	LONG
	OFFSETOF
	PROBE
	PROVIDER
	REGISTER
	RESTRICT
	RETURN
	SELF
	SHORT
	SIGNED
	SIZEOF
	STATIC
	STRING_KW
	STRINGOF
	STRUCT
	SWITCH
	THIS
	TRANSLATOR
	TYPEDEF
	UNION
	UNSIGNED
	USERLAND
	VOID
	VOLATILE
	WHILE
	XLATE
	keywordEnd
)

var names = [...]string{
	ILLEGAL: "ILLEGAL", EOF: "EOF", COMMENT: "COMMENT",
	IDENT: "identifier", INT: "integer", CHAR: "character constant", STRING: "string",
	MACRO: "macro variable", AGG: "aggregation", PROBEDESC: "probe description",

	ADD: "+", SUB: "-", MUL: "*", QUO: "/", REM: "%",
	AND: "&", OR: "|", XOR: "^", SHL: "<<", SHR: ">>",
	ADD_ASSIGN: "+=", SUB_ASSIGN: "-=", MUL_ASSIGN: "*=", QUO_ASSIGN: "/=", REM_ASSIGN: "%=",
	AND_ASSIGN: "&=", OR_ASSIGN: "|=", XOR_ASSIGN: "^=", SHL_ASSIGN: "<<=", SHR_ASSIGN: ">>=",
	LAND: "&&", LOR: "||", LXOR: "^^", INC: "++", DEC: "--",
	EQL: "==", LSS: "<", GTR: ">", ASSIGN: "=", NOT: "!", TILDE: "~",
	NEQ: "!=", LEQ: "<=", GEQ: ">=",
	LPAREN: "(", LBRACK: "[", LBRACE: "{", COMMA: ",", PERIOD: ".", ARROW: "->",
	RPAREN: ")", RBRACK: "]", RBRACE: "}", SEMI: ";", COLON: ":", QUEST: "?",
	ELLIPSIS: "...", BACKQUOTE: "`",

	AUTO: "auto", BREAK: "break", CASE: "case", CHAR_KW: "char", CONST: "const",
	CONTINUE: "continue", COUNTER: "counter", DEFAULT: "default", DO: "do", DOUBLE: "double",
	ELSE: "else", ENUM: "enum", EXTERN: "extern", FLOAT: "float", FOR: "for", GOTO: "goto",
	IF: "if", IMPORT: "import", INLINE: "inline", INT_KW: "int", LONG: "long",
	OFFSETOF: "offsetof", PROBE: "probe", PROVIDER: "provider", REGISTER: "register",
	RESTRICT: "restrict", RETURN: "return", SELF: "self", SHORT: "short", SIGNED: "signed",
	SIZEOF: "sizeof", STATIC: "static", STRING_KW: "string", STRINGOF: "stringof",
	STRUCT: "struct", SWITCH: "switch", THIS: "this", TRANSLATOR: "translator",
	TYPEDEF: "typedef", UNION: "union", UNSIGNED: "unsigned", USERLAND: "userland",
	VOID: "void", VOLATILE: "volatile", WHILE: "while", XLATE: "xlate",
}

// String returns the token's spelling (operators, keywords) or its class name.
func (k Kind) String() string {
	if k >= 0 && int(k) < len(names) && names[k] != "" {
		return names[k]
	}
	return fmt.Sprintf("token(%d)", int(k))
}

// IsLiteral reports whether k is an identifier or a literal.
func (k Kind) IsLiteral() bool { return literalBeg < k && k < literalEnd }

// IsOperator reports whether k is an operator or delimiter.
func (k Kind) IsOperator() bool { return operatorBeg < k && k < operatorEnd }

// IsKeyword reports whether k is a keyword.
func (k Kind) IsKeyword() bool { return keywordBeg < k && k < keywordEnd }

var keywords map[string]Kind

func init() {
	keywords = make(map[string]Kind)
	for k := keywordBeg + 1; k < keywordEnd; k++ {
		keywords[names[k]] = k
	}
}

// Lookup maps an identifier to its keyword kind, or IDENT.
func Lookup(ident string) Kind {
	if k, ok := keywords[ident]; ok {
		return k
	}
	return IDENT
}

// Precedence returns the binary-operator precedence of k (higher binds
// tighter), or 0 if k is not a binary operator. The levels follow C and D:
// || ^^ && | ^ & ==,!= relational shifts additive multiplicative.
func (k Kind) Precedence() int {
	switch k {
	case LOR:
		return 1
	case LXOR:
		return 2
	case LAND:
		return 3
	case OR:
		return 4
	case XOR:
		return 5
	case AND:
		return 6
	case EQL, NEQ:
		return 7
	case LSS, LEQ, GTR, GEQ:
		return 8
	case SHL, SHR:
		return 9
	case ADD, SUB:
		return 10
	case MUL, QUO, REM:
		return 11
	}
	return 0
}

// IsAssign reports whether k is = or a compound assignment.
func (k Kind) IsAssign() bool {
	return k == ASSIGN || (ADD_ASSIGN <= k && k <= SHR_ASSIGN)
}

// AssignOp returns the binary operator of a compound assignment (+ for +=).
func (k Kind) AssignOp() Kind {
	if ADD_ASSIGN <= k && k <= SHR_ASSIGN {
		return ADD + (k - ADD_ASSIGN)
	}
	return ILLEGAL
}
