package secret

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "regenerate testdata/positives.txtar and testdata/negatives.txtar")

// The corpus: realistic memories holding fake secrets of the right shape
// (generated from a fixed seed, never real) and tricky memories holding
// none. Each positive is named "<rule>/<case>": that rule must find it.
const (
	positivesFile = "testdata/positives.txtar"
	negativesFile = "testdata/negatives.txtar"
	// maxFalsePositives is the acceptance bar on the negatives.
	maxFalsePositives = 2
	// minCorpus is the size each side must have, and minChineseProse the
	// Chinese sentences about passwords, tokens, keys and policies among
	// the negatives (issue 13).
	minCorpus       = 120
	minChineseProse = 40
)

func TestCorpus(t *testing.T) {
	t.Parallel()
	if *update {
		r := rand.New(rand.NewPCG(2026, 1130))
		pos, neg := positives(r), negatives(r)
		// The second part (corpus_more_test.go) has its own stream.
		r2 := rand.New(rand.NewPCG(2026, 1313))
		pos, neg = append(pos, morePositives(r2)...), append(neg, moreNegatives(r2)...)
		writeCorpus(t, positivesFile, "Fake secrets of the right shape, one per file, named rule/case.\nRegenerate: go test ./vault/secret -run TestCorpus -update\n", pos)
		writeCorpus(t, negativesFile, "Tricky memories without secrets, named kind/case.\nRegenerate: go test ./vault/secret -run TestCorpus -update\n", neg)
	}
	pos := readCorpus(t, positivesFile)
	neg := readCorpus(t, negativesFile)
	if len(pos) < minCorpus || len(neg) < minCorpus {
		t.Fatalf("corpus has %d positives and %d negatives, want >= %d each", len(pos), len(neg), minCorpus)
	}
	zh := 0
	for _, f := range neg {
		if strings.HasPrefix(f.Name, "zh-prose/") {
			zh++
		}
	}
	if zh < minChineseProse {
		t.Errorf("%d Chinese prose negatives, want >= %d", zh, minChineseProse)
	}
	families := map[string]int{}
	detected := 0
	for _, f := range pos {
		rule := path.Dir(f.Name)
		if ruleByID(rule) == nil {
			t.Errorf("%s: no rule %q", f.Name, rule)
			continue
		}
		families[rule]++
		if got := Scan(f.Data); hasRule(got, rule) {
			detected++
		} else {
			t.Errorf("positive %s not detected by %s; got %v", f.Name, rule, got)
		}
	}
	flagged := 0
	for _, f := range neg {
		if got := Scan(f.Data); len(got) > 0 {
			flagged++
			t.Logf("negative %s flagged: %v", f.Name, got)
		}
	}
	for _, r := range rules {
		if families[r.id] == 0 {
			t.Errorf("no corpus positive for rule %s", r.id)
		}
	}
	t.Logf("positives detected %d/%d (%d rules); negatives flagged %d/%d", detected, len(pos), len(families), flagged, len(neg))
	if flagged > maxFalsePositives {
		t.Errorf("%d negatives flagged, want <= %d", flagged, maxFalsePositives)
	}
}

func readCorpus(t *testing.T, name string) []txtar.File {
	t.Helper()
	a, err := txtar.ParseFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return a.Files
}

func writeCorpus(t *testing.T, name, comment string, files []txtar.File) {
	t.Helper()
	for i := range files {
		if !bytes.HasSuffix(files[i].Data, []byte("\n")) {
			files[i].Data = append(files[i].Data, '\n')
		}
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, txtar.Format(&txtar.Archive{Comment: []byte(comment), Files: files}), 0o644); err != nil {
		t.Fatal(err)
	}
}

const (
	alnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b64    = alnum + "+/"
	b64url = alnum + "-_"
	base32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	hexLow = "0123456789abcdef"
	upperN = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
)

type gen struct{ r *rand.Rand }

func (g gen) s(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.r.IntN(len(alphabet))]
	}
	return string(b)
}

func (g gen) digits(n int) string { return g.s("0123456789", n) }

// pem returns a key block with n base64 lines of random bytes.
func (g gen) pem(kind string, lines int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "-----BEGIN %s-----\n", kind)
	for range lines {
		raw := make([]byte, 48)
		for i := range raw {
			raw[i] = byte(g.r.IntN(256))
		}
		b.WriteString(base64.StdEncoding.EncodeToString(raw) + "\n")
	}
	fmt.Fprintf(&b, "-----END %s-----\n", kind)
	return b.String()
}

func (g gen) jwt() string {
	head := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	body := base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf(`{"sub":"user-%s","iat":17645%s,"role":"admin"}`, g.digits(4), g.digits(5))))
	return head + "." + body + "." + g.s(b64url, 43)
}

func (g gen) awsSecret() string { return g.s(b64, 40) }

func memo(title, body string) string {
	return "---\ntitle: " + title + "\nlayer: project\ntags: [ops]\n---\n\n" + body
}

func file(name, data string) txtar.File { return txtar.File{Name: name, Data: []byte(data)} }

func positives(r *rand.Rand) []txtar.File {
	g := gen{r}
	ghp := func(prefix string) string { return prefix + g.s(alnum, 36) }
	akia := func(p string) string { return p + g.s(base32, 16) }
	var fs []txtar.File
	add := func(rule, name, data string) { fs = append(fs, file(rule+"/"+name, data)) }

	// Private keys.
	add("private-key", "rsa-in-fence", memo("Deploy key", "The deploy box uses this key:\n\n```\n"+g.pem("RSA PRIVATE KEY", 6)+"```\n"))
	add("private-key", "ec", memo("Signing key", g.pem("EC PRIVATE KEY", 3)))
	add("private-key", "openssh", memo("SSH 跳板机密钥", "跳板机的私钥如下，别外传：\n\n"+g.pem("OPENSSH PRIVATE KEY", 7)))
	add("private-key", "pkcs8", memo("TLS key", "nginx ssl_certificate_key:\n\n"+g.pem("PRIVATE KEY", 8)))
	add("private-key", "encrypted", memo("Encrypted key", g.pem("ENCRYPTED PRIVATE KEY", 6)+"\nThe passphrase is in 1Password.\n"))
	add("private-key", "dsa", memo("Legacy DSA key", g.pem("DSA PRIVATE KEY", 4)))
	add("private-key", "pgp", memo("Release signing", "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n"+strings.TrimPrefix(g.pem("X", 5), "-----BEGIN X-----\n")))
	add("private-key", "indented-yaml", memo("Helm values", "tls:\n  key: |\n    -----BEGIN RSA PRIVATE KEY-----\n    "+g.s(b64, 64)+"\n    "+g.s(b64, 64)+"\n    -----END RSA PRIVATE KEY-----\n"))

	// AWS.
	add("aws-access-key-id", "credentials-file", memo("AWS profile", "~/.aws/credentials:\n\n[default]\naws_access_key_id = "+akia("AKIA")+"\naws_secret_access_key = "+g.awsSecret()+"\n"))
	add("aws-access-key-id", "sts", memo("Temporary creds", "STS gave us "+akia("ASIA")+" for the migration."))
	add("aws-access-key-id", "chinese", memo("S3 上传", "S3 上传用的访问密钥 ID 是"+akia("AKIA")+"，权限只有 PutObject。"))
	add("aws-access-key-id", "json", memo("Lambda env", `{"AccessKeyId": "`+akia("AKIA")+`", "Region": "eu-west-1"}`))
	add("aws-access-key-id", "terraform", memo("Terraform provider", "provider \"aws\" {\n  access_key = \""+akia("AKIA")+"\"\n}\n"))
	add("aws-access-key-id", "inline-table", memo("Key inventory", "| user | key |\n|---|---|\n| ci-bot | "+akia("AKIA")+" |\n"))
	add("aws-secret-access-key", "env", memo("CI env", "export AWS_SECRET_ACCESS_KEY="+g.awsSecret()+"\n"))
	add("aws-secret-access-key", "yaml", memo("Backup job", "backup:\n  aws_secret_access_key: \""+g.awsSecret()+"\"\n"))
	add("aws-secret-access-key", "json", memo("SDK config", `{"SecretAccessKey": "`+g.awsSecret()+`"}`))
	add("aws-secret-access-key", "chinese", memo("备份", "备份脚本里 aws_secret_access_key："+g.awsSecret()+"（只读）"))
	add("aws-secret-access-key", "credentials-only", memo("AWS secret", "[prod]\naws_secret_access_key="+g.awsSecret()+"\n"))

	// GCP.
	sa := func() string {
		return `{
  "type": "service_account",
  "project_id": "shop-prod-` + g.digits(4) + `",
  "private_key_id": "` + g.s(hexLow, 40) + `",
  "private_key": "-----BEGIN PRIVATE KEY-----\n` + g.s(b64, 64) + `\n` + g.s(b64, 64) + `\n-----END PRIVATE KEY-----\n",
  "client_email": "ci@shop-prod.iam.gserviceaccount.com",
  "client_id": "` + g.digits(21) + `"
}`
	}
	add("gcp-service-account", "pretty", memo("GCP CI account", "```json\n"+sa()+"\n```\n"))
	add("gcp-service-account", "chinese", memo("GCP 服务账号", "服务账号的 JSON：\n\n"+sa()+"\n"))

	// Azure.
	add("azure-storage-key", "connection-string", memo("Blob storage", "DefaultEndpointsProtocol=https;AccountName=shopassets;AccountKey="+g.s(b64, 86)+"==;EndpointSuffix=core.windows.net\n"))
	add("azure-storage-key", "appsettings", memo("appsettings.json", `{"Storage": "DefaultEndpointsProtocol=https;AccountName=logs;AccountKey=`+g.s(b64, 86)+`==;"}`))
	add("azure-storage-key", "chinese", memo("Azure 存储", "存储账号连接串：AccountName=cn;AccountKey="+g.s(b64, 86)+"==，在中国区。"))
	add("azure-shared-access-key", "service-bus", memo("Service Bus", "Endpoint=sb://orders.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey="+g.s(b64, 43)+"=\n"))
	add("azure-shared-access-key", "iot-hub", memo("IoT Hub", "HostName=fleet.azure-devices.net;DeviceId=truck-7;SharedAccessKey="+g.s(b64, 43)+"=\n"))

	// GitHub.
	add("github-token", "classic-env", memo("GitHub CI", "GITHUB_TOKEN="+ghp("ghp_")+"\n"))
	add("github-token", "oauth", memo("OAuth app", "The OAuth flow returned "+ghp("gho_")+" for the bot."))
	add("github-token", "user-to-server", memo("App token", "user-to-server: "+ghp("ghu_")))
	add("github-token", "server-to-server", memo("App install token", "安装令牌 "+ghp("ghs_")+" 一小时后过期。"))
	add("github-token", "refresh", memo("Refresh token", "refresh_token="+ghp("ghr_")))
	add("github-token", "fine-grained", memo("Fine-grained PAT", "PAT: github_pat_"+g.s(alnum, 22)+"_"+g.s(alnum, 59)+"\n"))
	add("github-token", "in-url", memo("Clone URL", "git clone https://"+ghp("ghp_")+"@github.com/shop/api.git"))

	// GitLab.
	add("gitlab-token", "ci", memo("GitLab CI", "GITLAB_TOKEN: glpat-"+g.s(b64url, 20)+"\n"))
	add("gitlab-token", "chinese", memo("GitLab 访问令牌", "用 glpat-"+g.s(b64url, 20)+" 拉取私有仓库。"))
	add("gitlab-token", "npmrc", memo("GitLab registry", "//gitlab.example.org/api/v4/packages/npm/:_authToken=glpat-"+g.s(b64url, 20)+"\n"))

	// Slack.
	add("slack-token", "bot", memo("Slack bot", "SLACK_BOT_TOKEN=xoxb-"+g.digits(12)+"-"+g.digits(13)+"-"+g.s(alnum, 24)+"\n"))
	add("slack-token", "user", memo("Slack user token", "xoxp-"+g.digits(12)+"-"+g.digits(12)+"-"+g.digits(13)+"-"+g.s(hexLow, 32)))
	add("slack-token", "chinese", memo("Slack 通知", "通知机器人令牌：xoxb-"+g.digits(12)+"-"+g.digits(13)+"-"+g.s(alnum, 24)+"。"))
	add("slack-webhook", "webhook", memo("Alerts", "Alerts post to https://hooks.slack.com/services/T"+g.s(upperN, 8)+"/B"+g.s(upperN, 10)+"/"+g.s(alnum, 24)+"\n"))

	// Stripe.
	add("stripe-live-key", "secret", memo("Stripe", "STRIPE_SECRET_KEY=sk_live_"+g.s(alnum, 24)+"\n"))
	add("stripe-live-key", "restricted", memo("Stripe restricted", "The reporting job uses rk_live_"+g.s(alnum, 24)+"."))
	add("stripe-live-key", "chinese", memo("支付", "线上支付密钥 sk_live_"+g.s(alnum, 99)+" 只在网关使用。"))

	// OpenAI and Anthropic.
	add("openai-api-key", "project", memo("OpenAI", "OPENAI_API_KEY=sk-proj-"+g.s(b64url, 156)+"\n"))
	add("openai-api-key", "legacy", memo("Old OpenAI key", "sk-"+g.s(alnum, 20)+"T3BlbkFJ"+g.s(alnum, 20)))
	add("openai-api-key", "svcacct", memo("OpenAI service account", "service account key sk-svcacct-"+g.s(b64url, 60)))
	add("openai-api-key", "chinese", memo("模型调用", "调用模型用的 key 是 sk-proj-"+g.s(b64url, 74)+"，额度每月 100 美元。"))
	add("anthropic-api-key", "env", memo("Anthropic", "ANTHROPIC_API_KEY=sk-ant-api03-"+g.s(b64url, 93)+"AA\n"))
	add("anthropic-api-key", "admin", memo("Anthropic admin", "admin key: sk-ant-admin01-"+g.s(b64url, 93)+"AA"))
	add("anthropic-api-key", "chinese", memo("Claude 密钥", "测试环境的 Claude key：sk-ant-api03-"+g.s(b64url, 93)+"AA。"))

	// npm.
	add("npm-token", "npmrc", memo("npm publish", "//registry.npmjs.org/:_authToken=npm_"+g.s(alnum, 36)+"\n"))
	add("npm-token", "env", memo("npm CI", "NPM_TOKEN: npm_"+g.s(alnum, 36)))
	add("npm-token", "chinese", memo("发布 npm 包", "发布用的令牌是npm_"+g.s(alnum, 36)+"，别泄露。"))

	// JWT.
	add("jwt", "bearer", memo("API call", "curl -H 'Authorization: Bearer "+g.jwt()+"' https://api.shop.test/v1/orders\n"))
	add("jwt", "cookie", memo("Session cookie", "session="+g.jwt()+"; Path=/; HttpOnly"))
	add("jwt", "chinese", memo("调试用令牌", "管理员的 JWT：\n\n"+g.jwt()+"\n"))

	// Passwords in URLs and connection strings.
	pw := func() string { return g.s(alnum, 12) + "!" + g.digits(2) }
	add("url-password", "postgres", memo("Database", "DATABASE_URL=postgres://shop:"+pw()+"@db.internal:5432/shop\n"))
	add("url-password", "mysql-chinese", memo("报表库", "报表库连接：mysql://report:"+pw()+"@10.0.3.7:3306/bi，只读账号。"))
	add("url-password", "mongodb-srv", memo("Mongo", "mongodb+srv://app:"+g.s(alnum, 16)+"@cluster0.ab1cd.mongodb.net/?retryWrites=true"))
	add("url-password", "redis", memo("Cache", "REDIS_URL=redis://default:"+g.s(alnum, 20)+"@cache.internal:6379/0"))
	add("url-password", "amqp", memo("Queue", "amqp://orders:"+pw()+"@mq.internal:5672/vhost"))
	add("url-password", "https-basic", memo("Artifact repo", "pip install --index-url https://ci:"+pw()+"@pypi.internal/simple pkg"))
	add("connection-string-password", "sqlserver", memo("SQL Server", "Server=tcp:sql.internal,1433;Database=shop;User Id=svc;Password="+pw()+";Encrypt=true;\n"))
	add("connection-string-password", "odbc", memo("ODBC", "Driver={ODBC Driver 18};Server=sql;Uid=etl;Pwd="+pw()+";\n"))

	// Generic assignments.
	add("generic-secret", "yaml", memo("App config", "database:\n  password: "+pw()+"\n"))
	add("generic-secret", "json", memo("API client", `{"api_key": "`+g.s(hexLow, 32)+`"}`))
	add("generic-secret", "chinese-password", memo("测试库", "测试库的密码："+g.s(alnum, 10)+"#"+g.digits(2)+"，每月轮换。"))
	add("generic-secret", "chinese-token", memo("内部接口", "内部接口令牌是 "+g.s(alnum, 24)+" ，放在请求头里。"))
	add("generic-secret", "client-secret", memo("OAuth client", "client_secret="+g.s(b64url, 32)+"\n"))
	add("generic-secret", "toml", memo("Sentry", "[sentry]\nauth_token = \""+g.s(hexLow, 64)+"\"\n"))
	add("generic-secret", "dotenv", memo(".env", "SESSION_SECRET="+g.s(alnum, 40)+"\n"))
	add("generic-secret", "header", memo("Partner API", "x-api-key: "+g.s(alnum, 32)))
	add("generic-secret", "access-key", memo("MinIO", "MINIO_ACCESS_KEY="+g.s(upperN, 20)+"\n"))
	add("generic-secret", "short-strong", memo("Router", "admin password: "+g.s(alnum, 8)+"#"+g.digits(1)+"\n"))
	return fs
}

func negatives(r *rand.Rand) []txtar.File {
	g := gen{r}
	var fs []txtar.File
	add := func(kind, name, data string) { fs = append(fs, file(kind+"/"+name, data)) }
	uuid := func() string {
		h := g.s(hexLow, 32)
		return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:]
	}
	ulid := func() string { return "01J" + g.s("0123456789ABCDEFGHJKMNPQRSTVWXYZ", 23) }
	sha256 := func() string { return g.s(hexLow, 64) }
	sha1 := func() string { return g.s(hexLow, 40) }

	add("uuid", "request-id", memo("Tracing", "Request "+uuid()+" failed with a 502; see the trace."))
	add("uuid", "table", memo("Tenants", "| tenant | id |\n|---|---|\n| acme | "+uuid()+" |\n| globex | "+uuid()+" |\n"))
	add("uuid", "chinese", memo("租户", "租户 ID："+uuid()+"，迁移完成。"))
	add("git-hash", "commit", memo("Regression", "Broken since commit "+sha1()+"; reverted in "+sha1()[:12]+"."))
	add("git-hash", "merge", memo("Release", "Merge "+sha1()+" into main\n\nTagged v2.4.0."))
	add("git-hash", "chinese", memo("回滚", "回滚到 "+sha1()+"，原因是内存泄漏。"))
	add("sha256", "checksum", memo("Release checksums", sha256()+"  memvault_linux_amd64.tar.gz\n"+sha256()+"  memvault_darwin_arm64.tar.gz\n"))
	add("sha256", "docker-digest", memo("Base image", "FROM golang@sha256:"+sha256()+"\n"))
	add("sha256", "go-sum", memo("go.sum", "github.com/oklog/ulid/v2 v2.1.0 h1:"+g.s(b64, 43)+"=\ngithub.com/oklog/ulid/v2 v2.1.0/go.mod h1:"+g.s(b64, 43)+"=\n"))
	add("sha256", "npm-integrity", memo("lockfile", `"integrity": "sha512-`+g.s(b64, 86)+`=="`))
	img := make([]byte, 300)
	for i := range img {
		img[i] = byte(r.IntN(256))
	}
	add("base64", "data-uri", memo("Logo", "![logo](data:image/png;base64,"+base64.StdEncoding.EncodeToString(img)+")"))
	add("base64", "svg-inline", memo("Icon", "background: url(data:image/svg+xml;base64,"+base64.StdEncoding.EncodeToString(img[:120])+");"))
	add("base64", "blob", memo("Fixture", "The fixture payload is\n\n    "+base64.StdEncoding.EncodeToString(img[:90])+"\n"))
	add("ulid", "ids", memo("Memory ids", "Superseded "+ulid()+" and "+ulid()+"."))
	add("ulid", "front-matter", "---\nid: "+ulid()+"\ntitle: Decision\nsupersedes: ["+ulid()+"]\n---\n\nUse ULIDs.\n")
	add("ulid", "chinese", memo("记忆编号", "相关记忆："+ulid()+"。"))
	add("css", "colours", memo("Brand colours", "primary #1E40AF, accent #F59E0B, text #111827, muted #6B7280."))
	add("css", "theme", memo("Theme", "```css\n:root { --bg: #0f172a; --fg: #e2e8f0; --link: #38bdf8; }\n```\n"))
	add("semver", "versions", memo("Upgrades", "Bumped go-git from v5.12.0 to v5.19.3 and mcp-go to v1.2.1-rc.3+build.7."))
	add("semver", "constraint", memo("Node", "engines: node >=20.11.1 <23.0.0-0"))
	add("pinyin", "long-pinyin", memo("拼音检索", "用户搜 zhonghuarenmingongheguo 或 beijingshichaoyangqu 时，应该命中中文标题。"))
	add("pinyin", "token-word", memo("分词", "分词器把 token: zhongguorenminyinhangshanghaifenhang 拆成四段。"))
	add("pinyin", "password-pinyin", memo("提示", "password: mimashiwodeshengri（拼音提示，不是密码本身）"))
	add("pinyin", "mixed", memo("拼音", "拼音 shangwuzhongxin、xinxijishubu、jichusheshizu 都要支持。"))
	add("url", "plain", memo("Docs", "See https://docs.shop.test/runbooks/deploy?env=prod#rollback for rollback."))
	add("url", "user-only", memo("Git remote", "ssh://git@github.com:22/shop/api.git and git@github.com:shop/web.git"))
	add("url", "port-and-at", memo("Registry", "https://registry.shop.test:8443/v2/@scope/pkg and https://npm.shop.test/@babel/core"))
	add("url", "email", memo("Contacts", "Ask ops-oncall@shop.test or 运维值班 ops@shop.test."))
	add("url", "placeholder-password", memo("Local DB", "postgres://shop:password@localhost:5432/shop is the docker-compose default."))
	add("url", "env-password", memo("Compose", "DATABASE_URL=postgres://shop:${POSTGRES_PASSWORD}@db:5432/shop"))
	add("url", "angle-password", memo("Template", "redis://:<password>@cache:6379/0"))
	add("url", "same-as-user", memo("RabbitMQ dev", "amqp://guest:guest@localhost:5672/"))
	add("env-ref", "dollar-brace", memo("DB config", "password: ${DB_PASSWORD}\nuser: shop\n"))
	add("env-ref", "dollar", memo("CI", "token: $CI_JOB_TOKEN"))
	add("env-ref", "getenv", memo("Go config", "secret := os.Getenv(\"APP_SECRET\")"))
	add("env-ref", "process-env", memo("Node config", "const apiKey = process.env.STRIPE_KEY;"))
	add("env-ref", "template", memo("Helm", "password: {{ .Values.db.password }}"))
	add("env-ref", "k8s-secret-ref", memo("Deployment", "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef: {name: db, key: password}\n"))
	add("example", "aws-docs", memo("AWS docs", "AWS's docs use AKIAIOSFODNN7EXAMPLE with wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY."))
	add("example", "aws-credentials", memo("Credentials format", "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"))
	add("example", "azurite", memo("Local storage emulator", "AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;"))
	add("example", "marked-token", memo("Token format", "A GitHub token looks like "+"ghp_"+g.s(alnum, 36)+" <!-- memvault:allow-secret -->"))
	add("example", "marked-above", memo("Key format", "<!-- memvault:allow-secret -->\n"+strings.TrimSuffix(g.pem("RSA PRIVATE KEY", 1), "\n")))
	add("placeholder", "angle", memo("Setup", "api_key: <your-api-key>\nsecret: <fill me>\n"))
	add("placeholder", "xs", memo("Setup", "token: xxxxxxxxxxxxxxxxxxxxxxxx\npassword: ********\n"))
	add("placeholder", "your-key", memo("README", "OPENAI_API_KEY=your-openai-key-here"))
	add("placeholder", "github-xs", memo("Token docs", "GITHUB_TOKEN=ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"))
	add("placeholder", "changeme", memo("Defaults", "admin_password = changeme123"))
	add("placeholder", "redacted", memo("Incident", "The leaked key was sk_live_[REDACTED]; rotated at 14:02."))
	add("code", "header-read", memo("Middleware", "token = request.headers.get(\"Authorization\")"))
	add("code", "field", memo("Struct", "type Config struct {\n\tAPIKey string `json:\"api_key\"`\n\tToken  string\n}\n"))
	add("code", "dotted", memo("Settings", "secret_key = settings.SECRET_KEY"))
	add("code", "function", memo("Refresh", "access_token = refresh_access_token(client, scope)"))
	add("public", "ssh-rsa", memo("Authorized key", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI"+g.s(b64, 43)+" ops@laptop"))
	add("public", "public-key", memo("JWT verify key", g.pem("PUBLIC KEY", 3)))
	add("public", "certificate", memo("CA", g.pem("CERTIFICATE", 4)))
	add("prose", "chinese-password", memo("规范", "数据库密码：请向运维同事索取，不要写在记忆里。密钥放在 Vault。"))
	add("prose", "token-budget", memo("Recall budget", "The recall token budget is 8000 bytes, about 2,000 tokens; secret scanning runs first."))
	add("prose", "passwordless", memo("Auth", "We moved to passwordless login; the password reset flow is gone."))
	add("prose", "begin-header", memo("Key files", "A key file starts with -----BEGIN OPENSSH PRIVATE KEY----- ; never paste one here."))
	add("prose", "task-sk", memo("Tasks", "task-sk-the-quick-brown-fox-jumps-over-the-lazy-dog-2 is a branch name."))
	add("prose", "asia", memo("Regions", "ASIA-PACIFIC and Fantasia are not key ids; the AKIA prefix is."))
	add("misc", "arn", memo("IAM", "arn:aws:iam::"+g.digits(12)+":role/ci-deployer"))
	add("misc", "ip-port", memo("Hosts", "db at 10.0.3.7:5432, cache at [fd00::7]:6379"))
	add("misc", "dotted-non-jwt", memo("Metrics", "eyJustKidding.notAToken.reallyNotOneAtAllHere"))
	add("misc", "hex-key-name", memo("Feature flags", "flag_token_"+hex.EncodeToString([]byte("rollout"))+": enabled"))
	add("misc", "pwd", memo("Shell", "cd $(pwd)/build && pwd"))
	return fs
}

// TestSampleVaultIsClean scans the repository's sample vault: real,
// bilingual memories about a project, none holding a secret.
func TestSampleVaultIsClean(t *testing.T) {
	t.Parallel()
	n := 0
	err := filepath.WalkDir("../../sample-vault", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		if got := Scan(data); len(got) > 0 {
			t.Errorf("%s flagged: %v", p, got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no sample memories found")
	}
}
