package secret

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
)

// rules is the rule table, compiled once (each rule's expression on its
// first use: lazyre.go); keywords indexes every rule's
// keywords for the prefilter. Both are read-only after initialisation, as
// are the tables derived from them.
var rules, keywords = compile(table())

// keywordBytes marks the bytes that occur in a keyword, in either case;
// multilineKeywords is the set of the keywords of multiline rules.
var keywordBytes, multilineKeywords = func() (t [256]bool, mask uint64) {
	for _, w := range keywords.words {
		for i := 0; i < len(w); i++ {
			t[w[i]], t[upper(w[i])] = true, true
		}
	}
	for _, r := range rules {
		if r.multiline {
			mask |= r.keywordMask
		}
	}
	return t, mask
}()

// compiledRule pairs a rule with the bit set of its keywords.
type compiledRule struct {
	rule
	keywordMask uint64
}

func compile(tbl []rule) ([]compiledRule, *keywordTable) {
	var words []string
	index := map[string]int{}
	out := make([]compiledRule, len(tbl))
	for i, r := range tbl {
		out[i].rule = r
		for _, w := range r.keywords {
			k, ok := index[w]
			if !ok {
				k = len(words)
				index[w] = k
				words = append(words, w)
			}
			out[i].keywordMask |= 1 << k
		}
	}
	return out, newKeywordTable(words)
}

// The table. Each rule's positives must be found by it and its negatives by
// no rule at all (rules_test.go). Examples are fake values of the right
// shape; "EXAMPLE" values are AWS's own documented placeholders.
func table() []rule {
	return []rule{
		{
			id:          "private-key",
			description: "PEM or PGP private key block (RSA, EC, DSA, OpenSSH, PKCS#8, encrypted, PGP)",
			keywords:    []string{"private key"},
			re:          lazyRE(`-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----`),
			valid:       hasKeyBody,
			extend:      toEndMarker,
			multiline:   true,
			positives: []string{
				"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2Uw4Yo1dQ8VpW3sN9cLxE6hRgT0k\n-----END RSA PRIVATE KEY-----",
				"key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----",
				"-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\nlQOYBF4k3JkBCADJv8Qz2Lr7mN0pXw5cTgYhKs1uE9aVbD4fR6oHq3iWnZjPtUxM\n-----END PGP PRIVATE KEY BLOCK-----",
			},
			negatives: []string{
				"-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA3Tz2mr7SZiAMfQyuvBjM2Uw4\n-----END PUBLIC KEY-----",
				"The file starts with -----BEGIN RSA PRIVATE KEY----- and ends with the END line.",
				"-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----",
			},
		},
		{
			id:          "aws-access-key-id",
			description: "AWS access key id (AKIA/ASIA/ABIA/ACCA + 16 base32 characters)",
			keywords:    []string{"akia", "asia", "abia", "acca", "a3t"},
			re:          lazyRE(`^((?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16})\b`),
			anchored:    true,
			boundary:    true,
			glued:       hasDigit,
			group:       1,
			positives: []string{
				"aws_access_key_id = AKIAUJZDEGXDNCF32EPF",
				"密钥是AKIAUJZDEGXDNCF32EPF，别外传",
				"export AWS_ACCESS_KEY_ID=ASIAQ7MZK2TBW3XRLD5N",
			},
			negatives: []string{
				"aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
				"Asia-Pacific region AKIAshort",
				"AKIAUJZDEGXDNCF32EPF1234", // longer than an access key id
			},
		},
		{
			id:          "aws-secret-access-key",
			description: "AWS secret access key: 40 base64 characters assigned to an AWS-named key",
			keywords:    []string{"aws", "secret_access", "secretaccess", "secret-access"},
			re:          lazyRE(`(?i)(?:aws[a-z0-9_.\-]{0,30}|secret[_\-]?access[_\-]?key)["']?\s*(?::=|=>|=|:|：)\s*["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`),
			group:       1,
			minEntropy:  4.2,
			valid:       mixedCase,
			positives: []string{
				"aws_secret_access_key = 2hpChYgCfrL1spNxnyVmihA/2O76UMFxFkM/R5Kj",
				`{"SecretAccessKey": "Yq3b9TzK/v1mWp0QxN+8sLrD4hGcE7fJ2aUoZ6iB"}`,
			},
			negatives: []string{
				"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
				"aws_commit: 3f9a1c0b7d2e4f6a8b9c0d1e2f3a4b5c6d7e8f90", // hex, one case
				"aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY}",
			},
		},
		{
			id:          "gcp-service-account",
			description: `Google Cloud service-account JSON ("type": "service_account" with a private_key)`,
			keywords:    []string{"service_account"},
			re:          lazyRE(`"type"\s*:\s*"service_account"`),
			valid:       hasGCPPrivateKey,
			multiline:   true,
			positives: []string{
				`{"type": "service_account", "project_id": "demo-291", "private_key_id": "4f1c", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n"}`,
			},
			negatives: []string{
				`{"type": "service_account", "project_id": "demo-291", "private_key": "<redacted>"}`,
				"Use a service_account JSON key file; never commit it.",
			},
		},
		{
			id:          "azure-storage-key",
			description: "Azure storage connection string AccountKey=<base64>",
			keywords:    []string{"accountkey"},
			re:          lazyRE(`(?i)\bAccountKey\s*=\s*([A-Za-z0-9+/]{40,}={0,2})`),
			group:       1,
			minEntropy:  4.0,
			valid:       notKnownPublic,
			positives: []string{
				"DefaultEndpointsProtocol=https;AccountName=demo;AccountKey=CiHp6bR1IqfEouHgxzNNAL5wIScGebcy8F5n3/YNBDRzrZSgqbjG3uhkWKFLf6xuI5aHUQPFeNBTxaQWk8JzFa==;EndpointSuffix=core.windows.net",
			},
			negatives: []string{
				"AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
				"AccountKey=<your-account-key>",
			},
		},
		{
			id:          "azure-shared-access-key",
			description: "Azure Service Bus / Event Hubs / IoT SharedAccessKey=<base64>",
			keywords:    []string{"sharedaccesskey"},
			re:          lazyRE(`(?i)\bSharedAccessKey\s*=\s*([A-Za-z0-9+/]{30,}={0,2})`),
			group:       1,
			minEntropy:  4.0,
			positives: []string{
				"Endpoint=sb://demo.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=q8Vz2Lr7mN0pXw5cTgYhKs1uE9aVbD4fR6oHq3iWnZj=",
			},
			negatives: []string{
				"SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={key}",
			},
		},
		{
			id:          "github-token",
			description: "GitHub token (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_)",
			keywords:    []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
			re:          lazyRE(`^(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{50,})\b`),
			anchored:    true,
			boundary:    true,
			glued:       hasDigit,
			minEntropy:  3.5,
			positives: []string{
				"GITHUB_TOKEN=ghp_hGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rES",
				"用这个令牌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推送",
			},
			negatives: []string{
				"ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
				"tokens start with ghp_ or github_pat_",
			},
		},
		{
			id:          "gitlab-token",
			description: "GitLab personal, project or group access token (glpat-)",
			keywords:    []string{"glpat-"},
			re:          lazyRE(`^glpat-[A-Za-z0-9_\-.]{20,}`),
			anchored:    true,
			boundary:    true,
			glued:       hasDigit,
			minEntropy:  3.5,
			positives:   []string{"CI_TOKEN: glpat-qg6YYZYn9ZhyiA4uoRgn"},
			negatives:   []string{"glpat-xxxxxxxxxxxxxxxxxxxx", "a glpat- prefix"},
		},
		{
			id:          "slack-token",
			description: "Slack token (xoxb-, xoxp-, xoxa-, xoxo-, xoxs-, xoxr-)",
			keywords:    []string{"xox"},
			re:          lazyRE(`^xox[abposr]-[0-9]{6,}-[A-Za-z0-9-]{10,}`),
			anchored:    true,
			boundary:    true,
			glued:       hasDigit,
			minEntropy:  3.0,
			positives:   []string{"slack: xoxb-092815901396-2459571177774-fjgVvVqE1SkHbn88HxjSI6bW"},
			negatives:   []string{"xoxb-tokens are bot tokens", "xoxo-hugs"},
		},
		{
			id:          "slack-webhook",
			description: "Slack incoming-webhook URL",
			keywords:    []string{"https://hooks.slack.com"},
			re:          lazyRE(`^https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9+/]{30,}`),
			anchored:    true,
			positives:   []string{"notify: https://hooks.slack.com/services/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"},
			negatives:   []string{"see https://hooks.slack.com/services/ docs"},
		},
		{
			id:          "stripe-live-key",
			description: "Stripe live secret or restricted key (sk_live_, rk_live_)",
			keywords:    []string{"sk_live_", "rk_live_"},
			re:          lazyRE(`^[sr]k_live_[A-Za-z0-9]{20,}\b`),
			anchored:    true,
			boundary:    true,
			glued:       hasDigit,
			minEntropy:  3.5,
			positives:   []string{"STRIPE_KEY=sk_live_HtP3fS2qHx6kwXoIIXGvOoNZ"},
			negatives:   []string{"sk_live_ keys go in the vault", "pk_live_HtP3fS2qHx6kwXoIIXGvOoNZ"},
		},
		{
			id:          "anthropic-api-key",
			description: "Anthropic API key (sk-ant-...)",
			keywords:    []string{"sk-ant-"},
			re:          lazyRE(`^sk-ant-[a-z]{2,10}[0-9]{2}-[A-Za-z0-9_\-]{32,}`),
			anchored:    true,
			boundary:    true,
			glued:       hasDigit,
			minEntropy:  3.5,
			positives: []string{
				"ANTHROPIC_API_KEY=sk-ant-api03-1qhT61qtc4xatws8phP9nhFyJfm5di4PzJ59FHz5r1pY4OjE2jBMptUsGr7CmY-uCu3ZR1zTOlUcR64cXQLioDnkHIfxIAA",
			},
			negatives: []string{"keys look like sk-ant-api03-..."},
		},
		{
			id:          "openai-api-key",
			description: "OpenAI API key (sk-..., sk-proj-..., sk-svcacct-..., sk-admin-...)",
			keywords:    []string{"sk-"},
			re:          lazyRE(`^sk-(?:(?:proj|svcacct|admin)-)?[A-Za-z0-9_\-]{32,}`),
			anchored:    true,
			boundary:    true,
			glued:       distinctOpenAIKey,
			minEntropy:  3.5,
			valid:       openAIKey,
			positives: []string{
				"OPENAI_API_KEY=sk-proj-yEZDz_TddJ8HyS5SUkCnD8zRA9a9SkpXz9w3QlY7Zkuvqdt7",
				"old key 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",
			},
			negatives: []string{
				"sk-learn is scikit-learn",
				"model: task-sk-the-quick-brown-fox-jumps-over-lazy-dog-again",
			},
		},
		{
			id:          "npm-token",
			description: "npm access token (npm_ + 36 characters)",
			keywords:    []string{"npm_"},
			re:          lazyRE(`^npm_[A-Za-z0-9]{36}\b`),
			anchored:    true,
			boundary:    true,
			glued:       hasDigit,
			minEntropy:  3.5,
			positives:   []string{"//registry.npmjs.org/:_authToken=npm_Wi0B26R08qzjI6GKFSufrdZSlB5er8bOfZqf"},
			negatives:   []string{"npm_config_cache=/tmp/npm", "npm_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},
		},
		{
			id:          "jwt",
			description: "JSON Web Token (three base64url parts; the header decodes to JSON with alg)",
			keywords:    []string{"eyj"},
			re:          lazyRE(`^eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{16,}`),
			anchored:    true,
			boundary:    true,
			glued:       hasDigit,
			valid:       jwtHeader,
			positives: []string{
				"Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1LTQyIiwiaWF0IjoxNzY0NTAwMDAwfQ.Qm9n8sVt2LxWc4kP7rYzH1dF6aJ0uE3iTn5oBqXy9gM",
			},
			negatives: []string{
				"eyJub3QiOiJhIGp3dCJ9.eyJ4IjoxfQ.c2lnbmF0dXJlLXNpZ25hdHVyZQ", // header without alg
			},
		},
		{
			id:          "url-password",
			description: "password in a URL or DSN (scheme://user:password@host)",
			keywords:    []string{"://"},
			re:          lazyRE(`\b[A-Za-z][A-Za-z0-9+.\-]{1,30}://([^\s:/?#@"'<>\x60]+):([^\s/?#@"'<>\x60]+)@[^\s/?#@"'<>\x60]`),
			group:       2,
			valid:       urlPassword,
			// No class in the regexp admits a token end, and a match
			// needs an @ after its ://.
			token: true,
			need:  '@',
			positives: []string{
				"DATABASE_URL=postgres://app:Zq8v2Lr7mN0p@db.internal:5432/app",
				"连接串：mysql://root:S3cr3t!x9@10.0.0.5:3306/prod，用于报表",
			},
			negatives: []string{
				"postgres://app:password@localhost/app",
				"postgres://app:${DB_PASSWORD}@localhost/app",
				"redis://:<password>@cache:6379",
				"amqp://guest:guest@localhost:5672/",
				"https://example.com:8443/path@v2",
			},
		},
		{
			id:          "connection-string-password",
			description: "Password=... in a semicolon-separated connection string (ADO.NET, ODBC, JDBC properties)",
			keywords:    []string{"password", "pwd"},
			re:          lazyRE(`(?i)(?:^|[;"'\s])(?:password|pwd)\s*=\s*([^;"'\s]{4,})\s*(?:;|$)`),
			group:       1,
			valid:       connStringPassword,
			positives: []string{
				"Server=tcp:sql.internal,1433;Database=app;User Id=svc;Password=Hq7#vN2p!Lx9;",
			},
			negatives: []string{
				"Server=sql;Database=app;User Id=svc;Password=<password>;",
				"Server=sql;Database=app;User Id=svc;Password=$(DB_PASS);",
			},
		},
		{
			id:          "generic-secret",
			description: "password, secret, token or API key assigned a high-entropy value (English or Chinese key)",
			keywords: []string{"password", "passwd", "pwd", "secret", "token", "api_key", "api-key", "apikey",
				"access_key", "access-key", "accesskey", "private_key", "auth_key", "密码", "密钥", "秘钥", "口令", "令牌"},
			re:       lazyRE(`(?i)^(?:password|passwd|pwd|secret|token|api[_\-]?key|access[_\-]?key|private[_\-]?key|auth[_\-]?key|密码|密钥|秘钥|口令|令牌)(?:[_\-](?:key|value|string|str))?["']?\s*(?::=|=>|=|:|：|是|为)\s*["'\x60]?([^\s"'\x60,;，。；）)\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\x{3000}-\x{303F}\x{FF00}-\x{FFEF}]{8,})`),
			anchored: true,
			group:    1,
			valid:    genericValue,
			generic:  true,
			positives: []string{
				"db_password: gcF!Ha6i%li8Gj",
				`"api_key": "2824c1c099724caf4941d4072014b3ce"`,
				"数据库密码：Xk9#mP2$vLq7，仅限测试环境",
				"client_secret=Vb7-xQ2_pL9zR4wT8nM3kJ6h",
			},
			negatives: []string{
				"password: ${DB_PASSWORD}",
				"api_key: your-api-key-here",
				"token: zhongguorenminyinhangshanghaifenhang",
				"password_min_length: 12",
				"tokenizer: jieba-rs-v0.7.1",
				"secret = os.Getenv(\"APP_SECRET\")",
				"token = config.auth.tokenValue",
				"密码：请向运维同事索取，不要写在这里",
			},
		},
	}
}

// isDocumentedExample reports a value that vendors publish as an example,
// such as AWS's AKIAIOSFODNN7EXAMPLE: any match containing "EXAMPLE" in any
// case is taken as one.
func isDocumentedExample(s []byte) bool {
	return bytes.Contains(bytes.ToLower(s), []byte("example"))
}

// knownPublic holds well-known published development keys.
var knownPublic = []string{
	// Azurite / Azure Storage Emulator account key, published by Microsoft.
	"Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
}

func notKnownPublic(data []byte, start, end int) bool {
	for _, k := range knownPublic {
		if string(data[start:end]) == k {
			return false
		}
	}
	return true
}

// hasKeyBody requires a run of base64 after a BEGIN line, so that prose
// naming the header, or a block with its body elided, is not a secret.
func hasKeyBody(data []byte, _, end int) bool {
	rest := data[end:min(len(data), end+400)]
	run := 0
	for _, c := range rest {
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/', c == '=':
			run++
			if run >= 40 {
				return true
			}
		case c == '\n' || c == '\r':
			// base64 lines wrap; a run goes on across line breaks
		case c == '\\' && run == 0:
			// "\n" escapes in JSON-embedded keys
		default:
			run = 0
		}
	}
	return false
}

var endMarker = lazyRE(`-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----`)

// maxKeyBlock bounds the search for a key block's END line (a 4096-bit
// RSA key is about 3.3 KB; PGP blocks with subkeys run larger), so that
// many BEGIN lines cost linear time.
const maxKeyBlock = 16 << 10

// toEndMarker extends a key block's span to its END line when there is one.
func toEndMarker(data []byte, end int) int {
	if loc := endMarker.FindIndex(data[end:min(len(data), end+maxKeyBlock)]); loc != nil {
		return end + loc[1]
	}
	return end
}

var gcpPrivateKey = lazyRE(`"private_key"\s*:\s*"-----BEGIN`)

// hasGCPPrivateKey looks for the key near the "type" field (a service
// account file is a few KB), not in the whole input.
func hasGCPPrivateKey(data []byte, start, end int) bool {
	return gcpPrivateKey.Match(data[max(0, start-maxKeyBlock):min(len(data), end+maxKeyBlock)])
}

// mixedCase requires upper and lower case letters, which hex digests lack.
func mixedCase(data []byte, start, end int) bool {
	c := classes(data[start:end])
	return c&classUpper != 0 && c&classLower != 0
}

// hasDigit is the evidence a token glued to a word must show: random
// material of 16 or more characters almost always holds a digit, while an
// identifier that happens to contain a prefix ("task_live_dashboardView")
// rarely does.
func hasDigit(match []byte) bool {
	return bytes.ContainsAny(match, "0123456789")
}

// distinctOpenAIKey accepts an OpenAI key glued to a word only with a
// prefix no identifier has (sk-proj-, sk-svcacct-, sk-admin-) or the
// "T3BlbkFJ" (base64 "OpenAI") of legacy keys: "risk-assessment-…" must
// not read as "sk-…".
func distinctOpenAIKey(match []byte) bool {
	for _, p := range []string{"sk-proj-", "sk-svcacct-", "sk-admin-"} {
		if bytes.HasPrefix(match, []byte(p)) {
			return true
		}
	}
	return bytes.Contains(match, []byte("T3BlbkFJ"))
}

func openAIKey(data []byte, start, end int) bool {
	s := data[start:end]
	if bytes.HasPrefix(s, []byte("sk-ant-")) {
		return false // the Anthropic rule's
	}
	c := classes(s)
	return c&classUpper != 0 && c&classLower != 0 && c&classDigit != 0
}

// jwtHeader decodes the first part and requires a JSON object with "alg".
func jwtHeader(data []byte, start, end int) bool {
	head, _, _ := bytes.Cut(data[start:end], []byte("."))
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(string(head), "="))
	if err != nil {
		return false
	}
	var h map[string]any
	if json.Unmarshal(raw, &h) != nil {
		return false
	}
	_, ok := h["alg"]
	return ok
}

var urlUser = lazyRE(`://([^\s:/?#@"'<>\x60]+):$`)

// urlPassword rejects placeholders and a password equal to the user name
// (guest:guest, postgres:postgres: well-known local defaults).
func urlPassword(data []byte, start, end int) bool {
	pw := string(data[start:end])
	if len(pw) < 4 || isPlaceholder(pw) {
		return false
	}
	if m := urlUser.FindSubmatch(data[max(0, start-80):start]); m != nil && string(m[1]) == pw {
		return false
	}
	return true
}

func connStringPassword(data []byte, start, end int) bool {
	return !isPlaceholder(string(data[start:end]))
}

// genericValue decides whether a value assigned to a secret-named key looks
// like a real secret: not a placeholder, reference, identifier or word, and
// random enough for its length.
func genericValue(data []byte, start, end int) bool {
	v := data[start:end]
	s := string(v)
	if isPlaceholder(s) || bytes.ContainsAny(v, "()[]{}<>") {
		return false
	}
	if isIdentifier(v) || strings.HasPrefix(s, "/") || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "~/") || strings.Contains(s, "://") {
		return false
	}
	c := classes(v)
	n := popcount(c)
	h := entropy(v)
	switch {
	case len(v) < 16:
		return n >= 3 && h >= 3.0
	case n == 4:
		// Upper, lower, digit and symbol: a chosen password such as
		// Hunter2Secret!x9 repeats letters, so its entropy stays low.
		return h >= 3.0
	default:
		return n >= 2 && c&(classDigit|classUpper) != 0 && h >= 3.5
	}
}

// identifier matches dotted or plain identifiers (config.auth.tokenValue,
// SOME_SETTING, tokenvalue), which name a secret rather than hold one.
var identifier = lazyRE(`^(?:[A-Za-z_][A-Za-z_]*\.)+[A-Za-z_][A-Za-z0-9_]*$|^[A-Z_][A-Z0-9_]*$|^[a-z][a-z_\-]*$`)

// isIdentifier reports identifiers; an upper-case run with digits and no
// underscore (MINIO keys, AWS-like ids) is a value, not a constant name.
func isIdentifier(v []byte) bool {
	if !identifier.Match(v) {
		return false
	}
	upperOnly := classes(v)&classLower == 0 && !bytes.Contains(v, []byte("."))
	return !upperOnly || bytes.ContainsRune(v, '_') || !bytes.ContainsAny(v, "0123456789")
}

// placeholderWords mark a value as a stand-in, not a secret.
var placeholderWords = []string{
	"example", "placeholder", "changeme", "change_me", "change-me", "your", "xxxx", "****", "....", "redacted",
	"dummy", "sample", "replace", "insert", "fixme", "todo",
	"getenv", "environ", "process.env", "${", "{{", "$(", "%(", "…",
}

// nameWords name a secret: a value holding one ("db_password",
// "my-secret-token") names a secret rather than holds one, unless it also
// holds a digit and a symbol an identifier cannot ("Hunter2Secret!x9").
var nameWords = []string{"password", "passwd", "secret", "token"}

// isPlaceholder reports placeholders ("password", "***", "<password>",
// "${VAR}", "$VAR", "%VAR%", "your-key-here") and values made of one
// repeated character.
func isPlaceholder(s string) bool {
	s = strings.Trim(s, `"'`+"`")
	if s == "" {
		return true
	}
	switch s[0] {
	case '$', '%', '<', '[', '{', '(', '*':
		return true
	}
	l := strings.ToLower(s)
	for _, w := range placeholderWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	for _, w := range nameWords {
		if strings.Contains(l, w) && !(strings.ContainsAny(s, "0123456789") && strings.ContainsAny(s, "!#$%&*+=?@^|~")) {
			return true
		}
	}
	if l == "pass" || l == "pwd" || l == "user" || l == "root" || l == "admin" {
		return true
	}
	return strings.Count(s, s[:1]) == len(s)
}

const (
	classLower = 1 << iota
	classUpper
	classDigit
	classSymbol
)

func classes(s []byte) int {
	c := 0
	for _, b := range s {
		switch {
		case b >= 'a' && b <= 'z':
			c |= classLower
		case b >= 'A' && b <= 'Z':
			c |= classUpper
		case b >= '0' && b <= '9':
			c |= classDigit
		default:
			c |= classSymbol
		}
	}
	return c
}

func popcount(c int) int {
	n := 0
	for ; c != 0; c &= c - 1 {
		n++
	}
	return n
}
