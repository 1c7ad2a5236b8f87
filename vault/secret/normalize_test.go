package secret

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNormalize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"zero-width and soft hyphen", "gh\u200bp_a\u00adb\u200dc\u2060d\ufeff", "ghp_abcd"},
		{"full-width", "ｇｈｐ＿Ａ１：", "ghp_A1:"},
		{"ideographic and no-break space", "a\u3000b\u00a0c\u2009d", "a b c d"},
		{"mathematical and circled", "𝐠𝐡𝐩_ⓐ𝟏", "ghp_a1"},
		{"look-alike letters", "ghр_АКІА", "ghp_AKIA"},
		{"combining mark after a letter", "g\u0336h\u0332p_", "ghp_"},
		{"combining mark after Han is kept", "中\u0301", "中\u0301"},
		{"json escapes", `a\nb\tc\"d\\e\/f`, "a\nb\tc\"d\\e/f"},
		{"escaped backslash before n", `a\\nb`, `a\nb`},
		{"unicode escapes", `\u0067hp\u005f\u{41}\U00000042`, "ghp_AB"},
		{"surrogate pair", `\ud835\udc20`, "g"},
		{"escape of an invisible character", `gh\u200bp`, "ghp"},
		{"escaped control is a boundary", `a\bb\x00c`, "a b c"},
		{"hex escape", `\x67hp\x5f`, "ghp_"},
		{"html entities", "&#103;hp&#x5F;a&lowbar;b&amp;&lt;&ZeroWidthSpace;c", "ghp_a_b&<c"},
		{"not entities", "a & b &unknown; &#; &#xZZ; AT&T", "a & b &unknown; &#; &#xZZ; AT&T"},
		{"not escapes", `C:\path \q \u12 \x4`, `C:\path \q \u12 \x4`},
		{"unicode line breaks", "a\u2028b\u2029c\u0085d", "a\nb\nc\nd"},
		{"han and punctuation", "密码：必须包含12个字符，", "密码:必须包含12个字符,"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, ok := normalize([]byte(tt.in), true)
			got := tt.in
			if ok {
				got = string(n.text)
				checkOrigins(t, []byte(tt.in), n)
			}
			if got != tt.want {
				t.Errorf("normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if ok == (tt.in == tt.want) {
				t.Errorf("normalize(%q) reports changed = %v", tt.in, ok)
			}
		})
	}
}

// checkOrigins checks n.from: one entry per byte and one for the end,
// never decreasing, inside the input.
func checkOrigins(t *testing.T, src []byte, n normalized) {
	t.Helper()
	if len(n.from) != len(n.text)+1 || int(n.from[len(n.text)]) != len(src) {
		t.Fatalf("from has %d entries ending in %d; want %d ending in %d", len(n.from), n.from[len(n.from)-1], len(n.text)+1, len(src))
	}
	for i := 1; i < len(n.from); i++ {
		if n.from[i] < n.from[i-1] || n.from[i] > int32(len(src)) {
			t.Fatalf("from[%d] = %d after %d (input of %d bytes)", i, n.from[i], n.from[i-1], len(src))
		}
	}
}

func TestNormalizeLeavesPlainTextAlone(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "plain ASCII notes, with a tab\tand lines\n", "中文说明没有全角标点 以及 English", typicalMemoryText} {
		if n, ok := normalize([]byte(s), false); ok {
			t.Errorf("normalize(%q) changed it to %q", s, n.text)
		}
	}
}

const typicalMemoryText = "The build uses Go 1.26 and runs the linter before merging. 构建使用 Go 1.26"

// TestScanFindsEvasions is issue 13's finding 5: each way of writing a
// secret that a person or a program reads as the secret but a pattern did
// not. Positions are those of the input as given, in characters.
func TestScanFindsEvasions(t *testing.T) {
	t.Parallel()
	const (
		tok  = ghToken                                // ghp_ + 36
		body = "hGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rES" // tok without ghp_
		akia = "AKIAUJZDEGXDNCF32EPF"
	)
	fullWidth := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r > ' ' && r < 0x7F {
				return r - '!' + 0xFF01
			}
			return r
		}, s)
	}
	tests := []struct {
		name, in string
		want     []string
	}{
		{"zero-width space inside", "ghp_hGAkWvj7FAc9\u200b" + body[12:], []string{"github-token at line 1, column 1"}},
		{"zero-width joiner inside", "token " + tok[:10] + "\u200d" + tok[10:], []string{"github-token at line 1, column 7"}},
		{"zero-width non-joiner inside", akia[:4] + "\u200c" + akia[4:], []string{"aws-access-key-id at line 1, column 1"}},
		{"soft hyphen inside", "npm_Wi0B26R08qzj\u00adI6GKFSufrdZSlB5er8bOfZqf", []string{"npm-token at line 1, column 1"}},
		{"word joiner inside", "glpat-qg6YYZ\u2060Yn9ZhyiA4uoRgn", []string{"gitlab-token at line 1, column 1"}},
		{"byte-order mark inside", "sk_live_HtP3fS2q\ufeffHx6kwXoIIXGvOoNZ", []string{"stripe-live-key at line 1, column 1"}},
		{"full-width token", "令牌：" + fullWidth(tok), []string{"github-token at line 1, column 4"}},
		{"full-width prefix only", fullWidth("ghp_") + body, []string{"github-token at line 1, column 1"}},
		{"full-width key id", "密钥 " + fullWidth(akia), []string{"aws-access-key-id at line 1, column 4"}},
		{"full-width assignment", "ｐａｓｓｗｏｒｄ＝Ｘｋ９＃ｍＰ２＄ｖＬｑ７", []string{"connection-string-password at line 1, column 10"}},
		{"ideographic space around the separator", "password\u3000：\u3000Xk9#mP2$vLq7", []string{"generic-secret at line 1, column 12"}},
		{"cyrillic homoglyph in the prefix", "ghр_" + body, []string{"github-token at line 1, column 1"}},
		{"cyrillic homoglyphs in a key id", "АКІА" + akia[4:], []string{"aws-access-key-id at line 1, column 1"}},
		{"greek homoglyph", "xοxb-092815901396-2459571177774-fjgVvVqE1SkHbn88HxjSI6bW", []string{"slack-token at line 1, column 1"}},
		{"mathematical bold prefix", "𝐠𝐡𝐩_" + body, []string{"github-token at line 1, column 1"}},
		{"combining strike-through", "g\u0336h\u0336p\u0336_" + body, []string{"github-token at line 1, column 1"}},
		{"html decimal entity", "ghp&#95;" + body, []string{"github-token at line 1, column 1"}},
		{"html hex entity", "&#x67;hp_" + body, []string{"github-token at line 1, column 1"}},
		{"html named entity", "<p>ghp&lowbar;" + body + "</p>", []string{"github-token at line 1, column 4"}},
		{"html entity in a url password", "postgres://app:Zq8v2&#76;r7mN0p@db.internal/app", []string{"url-password at line 1, column 16"}},
		{"json escape before the token", `{"a":"x\n` + tok + `"}`, []string{"github-token at line 1, column 10"}},
		{"json tab before a key id", `"\t` + akia + `"`, []string{"aws-access-key-id at line 1, column 4"}},
		{"json unicode escape inside", `{"t":"ghp\u005f` + body + `"}`, []string{"github-token at line 1, column 7"}},
		{"json escaped slashes in a webhook", `{"url":"https:\/\/hooks.slack.com\/services\/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"}`, []string{"slack-webhook at line 1, column 9"}},
		{"json escaped newlines in a key", `{"key":"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2Uw4Yo1dQ8VpW3sN9cLxE6hRgT0k\n-----END RSA PRIVATE KEY-----"}`, []string{"private-key at line 1, column 9"}},
		{"log line with escaped assignment", `msg="config loaded\npassword=Hq7#vN2p!Lx9"`, []string{"generic-secret at line 1, column 30"}},
		{"preceded by a letter", "x" + tok, []string{"github-token at line 1, column 2"}},
		{"preceded by an underscore", "_" + akia, []string{"aws-access-key-id at line 1, column 2"}},
		{"preceded by a word", "mytoken" + tok, []string{"github-token at line 1, column 8"}},
		{"stripe key glued to a word", "keysk_live_HtP3fS2qHx6kwXoIIXGvOoNZ", []string{"stripe-live-key at line 1, column 4"}},
		{"openai project key glued", "key_sk-proj-yEZDz_TddJ8HyS5SUkCnD8zRA9a9SkpXz9w3QlY7Zkuvqdt7", []string{"openai-api-key at line 1, column 5"}},
		{"two evasions at once", "令牌：ｇｈｐ＿hGAkWvj7\u200bFAc9QeWJKY40uvSwMFLZDe1f8rES", []string{"github-token at line 1, column 4"}},
		{"on a later line", "notes\n\n  " + fullWidth("ghp_") + body, []string{"github-token at line 3, column 3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			found := Scan([]byte(tt.in))
			for _, f := range found {
				got = append(got, f.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Scan(%q) (-want +got):\n%s", tt.in, diff)
			}
			// Redaction removes the whole evasion and leaves nothing.
			red := Redact([]byte(tt.in))
			if left := Scan(red); len(left) > 0 {
				t.Errorf("Scan(Redact(%q)) = %v (redacted: %q)", tt.in, left, red)
			}
		})
	}
}

// TestGluedPrefixesNeedEvidence checks the other side of accepting a token
// glued to a word: an identifier that happens to hold a prefix is not one.
func TestGluedPrefixesNeedEvidence(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"task_live_dashboardViewNotifications",
		"risk-Assessment-Q3-2024-Final-Report-Version-2-Draft",
		"desk-RefactorTheBookingFlowIntoSmallerSteps2024",
		"asiaPacificRegionFailoverRunbook",
		"FANTASIAUJZDEGXDNCFEPFQ",
	} {
		if got := Scan([]byte(s)); len(got) > 0 {
			t.Errorf("Scan(%q) = %v, want none", s, got)
		}
	}
}

// TestChinesePolicyProseIsNotASecret is issue 13's finding 6: ordinary
// Chinese about passwords was refused as a generic secret (the Han bytes
// counted as random material), while a real chosen password with low
// entropy passed.
func TestChinesePolicyProseIsNotASecret(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"用户密码：必须至少包含12个字符，并且定期更换。",
		"口令：每90天更换一次",
		"密码：至少12位，包含大小写字母、数字和特殊符号",
		"API 密钥：在控制台的安全设置页面生成，有效期90天",
		"令牌：过期后需要重新登录获取新的令牌",
		"秘钥为AES256位密钥，由KMS统一托管",
		"密钥是32字节随机数，存放在密钥管理服务中",
		"password: 至少12位，每90天更换",
		"口令为8到16位字母数字组合",
	} {
		if got := Scan([]byte(s)); len(got) > 0 {
			t.Errorf("Scan(%q) = %v, want none", s, got)
		}
	}
	for _, tt := range []struct{ in, want string }{
		{"password=Hunter2Secret!x9", "at line 1, column 10"},
		{"db_password: Hunter2Secret!x9", "generic-secret at line 1, column 14"},
		{"数据库密码：Xk9#mP2$vLq7仅限测试环境", "generic-secret at line 1, column 7"},
		{"密码是Xk9#mP2$vLq7，别外传", "generic-secret at line 1, column 4"},
	} {
		got := Scan([]byte(tt.in))
		if len(got) != 1 || !strings.Contains(got[0].String(), tt.want) {
			t.Errorf("Scan(%q) = %v, want one finding %s", tt.in, got, tt.want)
		}
	}
}

// TestFastPathsAgree checks normalize's shortcuts against foldRune: the
// byte ranges it copies without decoding hold nothing to fold (even after
// a letter, where a combining mark would be dropped), and the full-width
// forms it folds directly fold to the same.
func TestFastPathsAgree(t *testing.T) {
	t.Parallel()
	skipped := [][2]rune{{0x4000, 0x9FFF}, {0x3001, 0x3029}, {0x3040, 0x30FF}}
	for _, rg := range skipped {
		for r := rg[0]; r <= rg[1]; r++ {
			if r == 0x3099 || r == 0x309A {
				continue // combining marks: normalize decodes them
			}
			if s, ok := foldRune(r, 'a'); ok {
				t.Errorf("foldRune(%U) = %q, but normalize copies it as it is", r, s)
			}
			in := []byte("a" + string(r))
			if n, ok := normalize(in, true); ok {
				t.Errorf("normalize(%q) = %q", in, n.text)
			}
		}
	}
	for r := rune(0xFF01); r <= 0xFF5E; r++ {
		want, _ := foldNFKC(r)
		n, ok := normalize([]byte(string(r)), true)
		if !ok || string(n.text) != want {
			t.Errorf("normalize(%U) = %q, want %q", r, n.text, want)
		}
	}
	for _, r := range []rune{0x3099, 0x309A} {
		if n, ok := normalize([]byte("g"+string(r)+"hp_"), true); !ok || string(n.text) != "ghp_" {
			t.Errorf("a combining kana mark after a letter is kept: %q", n.text)
		}
	}
}
