package trainprint

import "unicode/utf16"

// UTF16Slice returns s[start:end] with start and end counted in UTF-16 code units, as the API
// counts every span (Match.QueryStart, AlignedSpan.AStart, …). Out-of-range bounds are clamped.
//
//	text := "🚀 free software"
//	UTF16Slice(text, 3, 7) // "free"
func UTF16Slice(s string, start, end int) string {
	units := utf16.Encode([]rune(s))
	if start < 0 {
		start = 0
	}
	if end > len(units) {
		end = len(units)
	}
	if start >= end {
		return ""
	}
	return string(utf16.Decode(units[start:end]))
}
