package trainprint

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestAnalyzeFileSendsAMultipartUpload: the file in the field "file" under its name, the request's other
// fields as form fields (metadata as JSON), no content or content_encoding.
func TestAnalyzeFileSendsAMultipartUpload(t *testing.T) {
	file := []byte("%PDF-1.4 not really a PDF")
	var got map[string]string
	var gotFile []byte
	var gotName string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			t.Errorf("not a multipart form: %v (Content-Type %q)", err, r.Header.Get("Content-Type"))
		}
		got = map[string]string{}
		for k, v := range r.MultipartForm.Value {
			got[k] = v[0]
		}
		f, h, err := r.FormFile("file")
		if err != nil {
			t.Fatalf("no file part: %v", err)
		}
		gotName = h.Filename
		gotFile, _ = io.ReadAll(f)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"success":true,"analysis_id":"an_1","content_type":"pdf"}`)
	}))
	defer srv.Close()
	c, err := New(srv.URL, WithAPIKey("tp_test_k"))
	if err != nil {
		t.Fatal(err)
	}
	remote := false
	req := AnalyzeRequest{
		Content:         "ignored",
		ContentEncoding: "base64",
		IncludeText:     true,
		SearchRemote:    &remote,
		Metadata:        &AnalyzeMetadata{Title: "Annual report"},
	}
	r, err := c.AnalyzeFile(context.Background(), file, "report.pdf", req)
	if err != nil {
		t.Fatal(err)
	}
	if r.AnalysisID != "an_1" || string(r.ContentType) != "pdf" {
		t.Errorf("result %+v", r)
	}
	if gotName != "report.pdf" || string(gotFile) != string(file) {
		t.Errorf("file %q: %q", gotName, gotFile)
	}
	want := map[string]string{"include_text": "true", "search_remote": "false", "metadata": `{"title":"Annual report"}`}
	if len(got) != len(want) {
		t.Errorf("fields %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("field %s = %q, want %q", k, got[k], v)
		}
	}
}
