package trainprint

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"unicode/utf8"
)

// invalidText is the JSON path of the first string in v that is not valid UTF-8 (a lone surrogate's bytes, Latin-1),
// or "" when there is none. encoding/json would send each bad byte as U+FFFD: a text changed without a word, whose
// fingerprint, spans and work hash would be another text's. The path names a field as the server's refusals do
// (content, metadata.title, items[2].content).
func invalidText(v reflect.Value, path string) string {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return ""
		}
		return invalidText(v.Elem(), path)
	case reflect.String:
		if !utf8.ValidString(v.String()) {
			if path == "" {
				return "the body"
			}
			return path
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name := strings.Split(f.Tag.Get("json"), ",")[0]
			if name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if f.Anonymous && f.Tag.Get("json") == "" {
				name = "" // an embedded struct's fields are the outer one's
			}
			if p := invalidText(v.Field(i), joinPath(path, name)); p != "" {
				return p
			}
		}
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(a, b int) bool { return fmt.Sprint(keys[a]) < fmt.Sprint(keys[b]) })
		for _, k := range keys {
			name := fmt.Sprint(k.Interface())
			if k.Kind() == reflect.String && !utf8.ValidString(k.String()) {
				return joinPath(path, name)
			}
			if p := invalidText(v.MapIndex(k), joinPath(path, name)); p != "" {
				return p
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return "" // []byte is sent as base64
		}
		for i := 0; i < v.Len(); i++ {
			if p := invalidText(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	}
	return ""
}

func joinPath(path, name string) string {
	switch {
	case name == "":
		return path
	case path == "":
		return name
	default:
		return path + "." + name
	}
}

// invalidTextError refuses a request body holding text that is not valid UTF-8, in the words of the server's 422.
func invalidTextError(field string) *APIError {
	reason := "is not valid UTF-8 text (a lone surrogate's bytes, or another encoding): it would be sent changed"
	return &APIError{
		Code:    CodeInvalidInput,
		Message: field + ": " + reason,
		Details: map[string]interface{}{"location": "body", "field": field, "reason": reason},
	}
}
