package index

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSnippet(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("前言部分的文字。", 20) + "订单服务采用事件驱动架构，核心事件发布到 Kafka。" + strings.Repeat("后记部分的文字。", 20)
	en := "Intro words go here and keep going for a while before anything matters. " +
		"Production deploys run ops/deploy.sh which calls helm upgrade against the prod cluster. " +
		"Trailing words follow and keep going for a while after the interesting part ends."
	tests := []struct {
		name     string
		text     string
		terms    []string
		max      int
		contains []string
		exact    string
	}{
		{name: "short text whole", text: "订单号生成规则", terms: []string{"订单"}, max: 20, exact: "订单号生成规则"},
		{name: "zero budget", text: "abc", terms: nil, max: 0, exact: ""},
		{name: "tiny budget", text: "订单号生成规则", terms: []string{"规则"}, max: 2, exact: "订单"},
		{name: "CJK window around match", text: long, terms: []string{"事件", "驱动"}, max: 30, contains: []string{"事件驱动", Ellipsis}},
		{name: "index terms from Hit.Terms", text: en, terms: []string{"deploy", "helm"}, max: 60, contains: []string{"deploy.sh", "helm"}},
		{name: "plain words are analysed", text: en, terms: []string{"Deploys", "Helm"}, max: 60, contains: []string{"helm"}},
		{name: "no match gives the start", text: long, terms: []string{"不存在"}, max: 10, contains: []string{"前言部分"}},
		{name: "densest cluster wins", text: "支付 " + strings.Repeat("无关内容 ", 30) + "支付回调幂等 " + strings.Repeat("无关内容 ", 30), terms: []string{"支付", "回调", "幂等"}, max: 16, contains: []string{"支付回调幂等"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Snippet(tt.text, tt.terms, tt.max)
			if tt.exact != "" || tt.max == 0 {
				if got != tt.exact {
					t.Errorf("Snippet = %q, want %q", got, tt.exact)
				}
				return
			}
			if n := utf8.RuneCountInString(got); n > tt.max {
				t.Errorf("Snippet has %d runes, budget %d: %q", n, tt.max, got)
			}
			if !utf8.ValidString(got) {
				t.Errorf("Snippet is not valid UTF-8: %q", got)
			}
			for _, c := range tt.contains {
				if !strings.Contains(got, c) {
					t.Errorf("Snippet = %q, want it to contain %q", got, c)
				}
			}
		})
	}
}

func TestSnippetDoesNotSplitWords(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("alpha beta gamma delta ", 10) + "needle " + strings.Repeat("epsilon zeta eta theta ", 10)
	got := Snippet(text, []string{"needle"}, 40)
	inner := strings.TrimSuffix(strings.TrimPrefix(got, Ellipsis), Ellipsis)
	for _, w := range strings.Fields(inner) {
		if !strings.Contains(text, " "+w+" ") && !strings.HasPrefix(text, w+" ") {
			t.Errorf("Snippet %q cut a word: %q", got, w)
		}
	}
	if !strings.HasPrefix(got, Ellipsis) || !strings.HasSuffix(got, Ellipsis) {
		t.Errorf("Snippet %q should be cut at both ends", got)
	}
}
