package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf16"
)

// pythonJSON renders a generic JSON value exactly as Python's json.dumps(value,
// sort_keys=True) does: ", " and ": " separators, keys sorted, non-ASCII escaped.
// The committed expected.jsonl files use this form.
func pythonJSON(v interface{}) string {
	var b strings.Builder
	writePython(&b, v)
	return b.String()
}

func writePython(b *strings.Builder, v interface{}) {
	switch value := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if value {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case json.Number:
		b.WriteString(value.String())
	case string:
		writePythonString(b, value)
	case []interface{}:
		b.WriteByte('[')
		for i, item := range value {
			if i > 0 {
				b.WriteString(", ")
			}
			writePython(b, item)
		}
		b.WriteByte(']')
	case map[string]interface{}:
		keys := make([]string, 0, len(value))
		for k := range value {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writePythonString(b, k)
			b.WriteString(": ")
			writePython(b, value[k])
		}
		b.WriteByte('}')
	default:
		panic(fmt.Sprintf("pythonJSON: unexpected %T", v))
	}
}

func writePythonString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		case r > 0xffff:
			high, low := utf16.EncodeRune(r)
			fmt.Fprintf(b, `\u%04x\u%04x`, high, low)
		default:
			fmt.Fprintf(b, `\u%04x`, r)
		}
	}
	b.WriteByte('"')
}
