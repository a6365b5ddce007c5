package main

import (
	"context"
	"net/http"
	"net/http/httptest"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	auditinternal "k8s.io/apiserver/pkg/apis/audit"
	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/endpoints/filters"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
)

// admissionOutcome is what a user of the apiserver sees of one admission call.
type admissionOutcome struct {
	err              error
	warnings         []string
	auditAnnotations map[string]string
}

// runInRequest calls admit inside the request context kube-apiserver gives a handler: its deduplicating, truncating
// warning recorder (filters.WithWarningRecorder, read back from the Warning headers it writes) and an audit context
// at RequestResponse level, so every annotation the plugin records reaches the event.
func runInRequest(admit func(ctx context.Context) error) admissionOutcome {
	var out admissionOutcome
	handler := filters.WithWarningRecorder(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		ctx := audit.WithAuditContext(req.Context())
		auditContext := audit.AuditContextFrom(ctx)
		_ = auditContext.Init(audit.RequestAuditConfig{Level: auditinternal.LevelRequestResponse}, nil)
		out.err = admit(ctx)
		out.auditAnnotations = auditContext.GetEventAnnotations()
	}))
	recorder := httptest.NewRecorder()
	handler.ServeHTTP(recorder, httptest.NewRequest(http.MethodPost, "/", nil))
	headers, _ := utilnet.ParseWarningHeaders(recorder.Header().Values("Warning"))
	for _, h := range headers {
		out.warnings = append(out.warnings, h.Text)
	}
	return out
}

// statusOf is the Status the apiserver writes for an admission error (responsewriters.ErrorNegotiated uses
// ErrorToAPIStatus).
func statusOf(err error) answer {
	status := responsewriters.ErrorToAPIStatus(err)
	result := answer{"code": status.Code, "reason": string(status.Reason), "message": status.Message}
	if status.Details != nil {
		result["details"] = status.Details
	}
	return result
}

func (out admissionOutcome) answer() answer {
	result := answer{"allowed": out.err == nil, "warnings": nonNil(out.warnings), "auditAnnotations": nonNilMap(out.auditAnnotations)}
	if out.err != nil {
		result["status"] = statusOf(out.err)
	}
	return result
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
