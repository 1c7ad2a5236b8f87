package secret

import (
	"strings"
	"testing"
)

// typicalMemory is a 500-byte bilingual memory without any keyword.
var typicalMemory = []byte(strings.Repeat("The build uses Go 1.26 and runs the linter before merging. "+
	"构建使用 Go 1.26，合并前运行检查。 ", 6)[:500])

// BenchmarkScanTypical measures the prefilter alone: no keyword, no regexp.
func BenchmarkScanTypical(b *testing.B) {
	b.SetBytes(int64(len(typicalMemory)))
	for b.Loop() {
		if Scan(typicalMemory) != nil {
			b.Fatal("unexpected finding")
		}
	}
}

// chineseMemory is a 500-byte Chinese memory with full-width punctuation,
// which the normalised scan folds: the common case of a Chinese note.
var chineseMemory = []byte(strings.Repeat("订单服务采用事件驱动架构，核心事件发布到消息队列；库存、积分、通知服务各自订阅（互不直接调用）。", 4)[:498])

// BenchmarkScanChinese measures a memory that normalize rewrites but that
// holds no keyword: the cost of the normalised copy.
func BenchmarkScanChinese(b *testing.B) {
	b.SetBytes(int64(len(chineseMemory)))
	for b.Loop() {
		if Scan(chineseMemory) != nil {
			b.Fatal("unexpected finding")
		}
	}
}

// BenchmarkScanChineseKeyword measures a Chinese memory naming a password
// policy: keywords in both the text and its normalised copy.
func BenchmarkScanChineseKeyword(b *testing.B) {
	data := append([]byte("用户密码：必须至少包含12个字符，并且定期更换。\n"), chineseMemory...)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if Scan(data) != nil {
			b.Fatal("unexpected finding")
		}
	}
}

// BenchmarkScanKeyword measures a memory that names a password without
// holding one, so the generic rule's regexp runs.
func BenchmarkScanKeyword(b *testing.B) {
	data := append([]byte("Rotate the database password every 90 days; see the runbook.\n"), typicalMemory...)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		Scan(data)
	}
}

// BenchmarkScanSecret measures a memory holding a token.
func BenchmarkScanSecret(b *testing.B) {
	data := append([]byte("GITHUB_TOKEN="+ghToken+"\n"), typicalMemory...)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if len(Scan(data)) != 1 {
			b.Fatal("want one finding")
		}
	}
}

// BenchmarkScanAdversarial measures 64 KB (the content limit) of repeated
// keywords, secrets and evasions, which must stay linear in the input.
func BenchmarkScanAdversarial(b *testing.B) {
	for _, tt := range []struct{ name, unit string }{
		{"sk", "sk-"}, {"密", "密码："}, {"pas", "password=Xk9#mP2$vLq7 "}, {"ghp", ghToken + " "},
		{"zero-width", "a\u200b"}, {"entity", "&#95;"}, {"escape", "\\u005f"}, {"full-width", "ｓｋ－"},
		{"zero-width-password", "password=Xk9#\u200bmP2$vLq7 "},
	} {
		data := []byte(strings.Repeat(tt.unit, 65536/len(tt.unit)))
		b.Run(tt.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				Scan(data)
			}
		})
	}
}

// BenchmarkScanLink measures a long prose line holding a plain link: the
// URL rule's keyword occurs, but its token has no credentials.
func BenchmarkScanLink(b *testing.B) {
	data := []byte(strings.Repeat("The checkout flow follows the strategy pattern, 结算模块使用策略模式, ", 8) +
		"see [the design doc](https://example.com/docs/checkout) for details.\n")
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if Scan(data) != nil {
			b.Fatal("unexpected finding")
		}
	}
}
