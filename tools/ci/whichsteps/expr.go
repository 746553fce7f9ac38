package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

type kind int

const (
	kindNull kind = iota
	kindBool
	kindInt
	kindString
	kindRegexp
)

type value struct {
	kind kind
	b    bool
	i    int64
	s    string
	re   *regexp.Regexp
}

// truthy is how && || ! read a value: false and null are false.
func (v value) truthy() bool {
	switch v.kind {
	case kindNull:
		return false
	case kindBool:
		return v.b
	}
	return true
}

func (v value) equal(w value) bool {
	if v.kind != w.kind {
		return false
	}
	switch v.kind {
	case kindBool:
		return v.b == w.b
	case kindInt:
		return v.i == w.i
	case kindString:
		return v.s == w.s
	}
	return v.kind == kindNull
}

// evaluate parses text and evaluates it with the variables of env.
func evaluate(text string, env map[string]value) (bool, error) {
	toks, err := tokenize(text)
	if err != nil {
		return false, err
	}
	for _, t := range toks {
		if t.kind == tokIdent && t.text == "includes" {
			return false, fmt.Errorf("includes: %w", errUnsupported)
		}
	}
	p := &parser{toks: toks, env: env}
	v, err := p.or()
	if err != nil {
		return false, err
	}
	if p.pos < len(p.toks) {
		return false, fmt.Errorf("unexpected %q", p.toks[p.pos].text)
	}
	return v.truthy(), nil
}

type tokKind int

const (
	tokIdent tokKind = iota
	tokString
	tokInt
	tokRegexp
	tokOp
)

var twoCharOps = map[string]bool{"==": true, "!=": true, "=~": true, "!~": true, "&&": true, "||": true}

type token struct {
	kind tokKind
	text string
}

func tokenize(s string) ([]token, error) {
	var toks []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.HasPrefix(s[i:], "//"):
			// A comment runs to the end of the line.
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '"' || c == '\'':
			j := i + 1
			var b strings.Builder
			for ; j < len(s) && s[j] != c; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
				}
				b.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, fmt.Errorf("unterminated string at %d", i)
			}
			toks = append(toks, token{tokString, b.String()})
			i = j + 1
		case c == '/' && len(toks) > 0 && (toks[len(toks)-1].text == "=~" || toks[len(toks)-1].text == "!~"):
			j := i + 1
			for ; j < len(s) && s[j] != '/'; j++ {
				if s[j] == '\\' {
					j++
				}
			}
			if j >= len(s) {
				return nil, fmt.Errorf("unterminated regular expression at %d", i)
			}
			toks = append(toks, token{tokRegexp, s[i+1 : j]})
			i = j + 1
		case i+1 < len(s) && twoCharOps[s[i:i+2]]:
			toks = append(toks, token{tokOp, s[i : i+2]})
			i += 2
		case c == '!' || c == '(' || c == ')':
			toks = append(toks, token{tokOp, string(c)})
			i++
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			toks = append(toks, token{tokInt, s[i:j]})
			i = j
		case unicode.IsLetter(rune(c)) || c == '_':
			j := i
			for j < len(s) && (unicode.IsLetter(rune(s[j])) || unicode.IsDigit(rune(s[j])) || s[j] == '_' || s[j] == '.') {
				j++
			}
			toks = append(toks, token{tokIdent, s[i:j]})
			i = j
		default:
			return nil, fmt.Errorf("unexpected %q at %d", c, i)
		}
	}
	return toks, nil
}

// parser: || binds loosest, then &&, then the prefix !, then comparisons.
type parser struct {
	toks []token
	pos  int
	env  map[string]value
}

func (p *parser) peek(op string) bool {
	return p.pos < len(p.toks) && p.toks[p.pos].kind == tokOp && p.toks[p.pos].text == op
}

func (p *parser) or() (value, error) {
	v, err := p.and()
	for err == nil && p.peek("||") {
		p.pos++
		var w value
		if w, err = p.and(); err == nil {
			v = boolean(v.truthy() || w.truthy())
		}
	}
	return v, err
}

func (p *parser) and() (value, error) {
	v, err := p.unary()
	for err == nil && p.peek("&&") {
		p.pos++
		var w value
		if w, err = p.unary(); err == nil {
			v = boolean(v.truthy() && w.truthy())
		}
	}
	return v, err
}

func (p *parser) unary() (value, error) {
	if p.peek("!") {
		p.pos++
		v, err := p.unary()
		return boolean(!v.truthy()), err
	}
	return p.comparison()
}

func (p *parser) comparison() (value, error) {
	left, err := p.primary()
	if err != nil {
		return left, err
	}
	for _, op := range []string{"==", "!=", "=~", "!~"} {
		if !p.peek(op) {
			continue
		}
		p.pos++
		right, err := p.primary()
		if err != nil {
			return right, err
		}
		switch op {
		case "==":
			return boolean(left.equal(right)), nil
		case "!=":
			return boolean(!left.equal(right)), nil
		}
		if right.kind != kindRegexp {
			return value{}, fmt.Errorf("%s wants a regular expression on its right", op)
		}
		matched := left.kind == kindString && right.re.MatchString(left.s)
		return boolean(matched == (op == "=~")), nil
	}
	return left, nil
}

func (p *parser) primary() (value, error) {
	if p.pos >= len(p.toks) {
		return value{}, fmt.Errorf("unexpected end of condition")
	}
	t := p.toks[p.pos]
	p.pos++
	switch t.kind {
	case tokString:
		return value{kind: kindString, s: t.text}, nil
	case tokInt:
		i, err := strconv.ParseInt(t.text, 10, 64)
		return value{kind: kindInt, i: i}, err
	case tokRegexp:
		re, err := regexp.Compile(t.text)
		return value{kind: kindRegexp, re: re}, err
	case tokOp:
		if t.text == "(" {
			v, err := p.or()
			if err != nil {
				return v, err
			}
			if !p.peek(")") {
				return v, fmt.Errorf("missing )")
			}
			p.pos++
			return v, nil
		}
		return value{}, fmt.Errorf("unexpected %q", t.text)
	}
	switch t.text {
	case "true", "false":
		return boolean(t.text == "true"), nil
	case "null":
		return value{kind: kindNull}, nil
	}
	if p.peek("(") {
		return value{}, fmt.Errorf("%s(): %w", t.text, errUnsupported)
	}
	v, ok := p.env[t.text]
	if !ok {
		return value{}, fmt.Errorf("variable %s is not given (-var %s=...)", t.text, t.text)
	}
	return v, nil
}

func boolean(b bool) value { return value{kind: kindBool, b: b} }
