package secret

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"
)

// The second part of the corpus (issue 13): each evasion of a secret
// across the rule families, a chosen password of low entropy, and Chinese
// and English prose about passwords, tokens, keys and policies, which
// must not be flagged. It has its own random stream so that the first
// part stays as it was.

// Evasions applied to a secret's text.
func zeroWidth(s string, at int) string { return s[:at] + "\u200b" + s[at:] }

func fullWidthASCII(s string) string {
	return strings.Map(func(r rune) rune {
		if r > ' ' && r < 0x7F {
			return r - '!' + 0xFF01
		}
		return r
	}, s)
}

func htmlEscapeAll(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		fmt.Fprintf(&b, "&#%d;", c)
	}
	return b.String()
}

func mathBold(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return 0x1D41A + r - 'a'
		case r >= 'A' && r <= 'Z':
			return 0x1D400 + r - 'A'
		case r >= '0' && r <= '9':
			return 0x1D7CE + r - '0'
		}
		return r
	}, s)
}

func morePositives(r *rand.Rand) []txtar.File {
	g := gen{r}
	var fs []txtar.File
	add := func(rule, name, data string) { fs = append(fs, file(rule+"/"+name, data)) }
	ghp := func(prefix string) string { return prefix + g.s(alnum, 36) }
	akia := func() string { return "AKIA" + g.s(base32, 16) }
	pw := func() string { return g.s(alnum, 10) + "#" + g.digits(2) + g.s(alnum, 2) }

	// Invisible characters inside a token.
	add("github-token", "evasion-zero-width-space", memo("CI token", "The bot pushes with "+zeroWidth(ghp("ghp_"), 12)+" since Monday."))
	add("aws-access-key-id", "evasion-zero-width-joiner", memo("AWS key", "key id: "+strings.Replace(akia(), "AKIA", "AKIA\u200d", 1)))
	add("npm-token", "evasion-soft-hyphen", memo("npm publish", "//registry.npmjs.org/:_authToken=npm_"+g.s(alnum, 18)+"\u00ad"+g.s(alnum, 18)+"\n"))
	add("gitlab-token", "evasion-word-joiner", memo("GitLab 令牌", "仓库令牌 glpat-"+g.s(b64url, 10)+"\u2060"+g.s(b64url, 10)+" 只读。"))
	add("stripe-live-key", "evasion-byte-order-mark", memo("Stripe", "STRIPE_KEY=sk_live_\ufeff"+g.s(alnum, 24)+"\n"))
	add("jwt", "evasion-zero-width-non-joiner", memo("Session", "session="+strings.Replace(g.jwt(), ".", ".\u200c", 1)+"; Path=/"))
	add("url-password", "evasion-soft-hyphen", memo("Database", "DATABASE_URL=postgres://shop:"+g.s(alnum, 6)+"\u00ad"+g.s(alnum, 6)+"@db.internal:5432/shop\n"))
	add("connection-string-password", "evasion-zero-width", memo("SQL Server", "Server=sql;Database=shop;User Id=svc;Pwd\u200b="+pw()+";\n"))
	add("private-key", "evasion-zero-width-in-header", memo("Deploy key", strings.Replace(g.pem("RSA PRIVATE KEY", 3), "PRIVATE KEY-----\n", "PRIVATE\u200b KEY-----\n", 1)))
	add("aws-secret-access-key", "evasion-tag-characters", memo("Backup", "aws_secret_access_key = \U000E0041"+g.awsSecret()+"\n"))

	// Full-width and other compatibility forms.
	add("github-token", "evasion-full-width", memo("令牌", "推送用的令牌："+fullWidthASCII(ghp("ghp_"))+"，不要外传。"))
	add("slack-token", "evasion-full-width-prefix", memo("Slack 机器人", "机器人令牌 "+fullWidthASCII("xoxb-")+g.digits(12)+"-"+g.digits(13)+"-"+g.s(alnum, 24)))
	add("connection-string-password", "evasion-full-width-assignment", memo("测试库", fullWidthASCII("password="+pw())+"\n"))
	add("generic-secret", "evasion-full-width-chinese-key", memo("内部接口", "内部接口令牌＝"+fullWidthASCII(g.s(alnum, 20))+"，放在请求头里。"))
	add("generic-secret", "evasion-ideographic-space", memo("App config", "password\u3000:\u3000"+pw()+"\n"))
	add("gitlab-token", "evasion-full-width", memo("GitLab", "CI_TOKEN: "+fullWidthASCII("glpat-"+g.s(alnum, 20))))
	add("azure-storage-key", "evasion-full-width-equals", memo("Blob storage", "AccountName=logs;AccountKey＝"+g.s(b64, 86)+"==;\n"))
	add("anthropic-api-key", "evasion-math-bold", memo("Claude key", mathBold("sk-ant-api03-")+g.s(b64url, 93)+"AA"))
	add("aws-access-key-id", "evasion-math-digits", memo("Key inventory", "ci-bot: AKIA"+mathBold(g.s("234567", 4))+g.s(base32, 12)))
	add("github-token", "evasion-circled", memo("Token", "ⓖⓗⓟ_"+g.s(alnum, 36)))

	// Look-alike letters of other scripts.
	add("github-token", "evasion-cyrillic", memo("GitHub", "GITHUB_TOKEN=ghр_"+g.s(alnum, 36)+"\n"))
	add("aws-access-key-id", "evasion-cyrillic", memo("AWS 密钥", "访问密钥 ID：АКІА"+g.s(base32, 16)+"。"))
	add("slack-token", "evasion-greek", memo("Slack", "SLACK_BOT_TOKEN=xοxb-"+g.digits(12)+"-"+g.digits(13)+"-"+g.s(alnum, 24)+"\n"))
	add("aws-secret-access-key", "evasion-cyrillic-key-name", memo("Backup", "аws_secret_access_key = "+g.awsSecret()+"\n"))
	add("github-token", "evasion-combining-marks", memo("Token", "g\u0336h\u0336p\u0336_"+g.s(alnum, 36)))

	// HTML character references.
	add("github-token", "evasion-html-decimal", memo("Wiki export", "<p>CI token: ghp&#95;"+g.s(alnum, 36)+"</p>"))
	add("openai-api-key", "evasion-html-hex", memo("Docs page", "<code>&#x73;k-proj-"+g.s(b64url, 74)+"</code>"))
	add("npm-token", "evasion-html-named", memo("Confluence", "npm&lowbar;"+g.s(alnum, 36)))
	add("url-password", "evasion-html-entity", memo("Runbook", "<td>postgres://app:"+g.s(alnum, 6)+"&#33;"+g.s(alnum, 6)+"@db.internal/app</td>"))
	add("slack-webhook", "evasion-html-slashes", memo("Alerts", "https:&#47;&#47;hooks.slack.com&#47;services&#47;T"+g.s(upperN, 8)+"&#47;B"+g.s(upperN, 10)+"&#47;"+g.s(alnum, 24)))
	add("azure-shared-access-key", "evasion-html-equals", memo("Service Bus", "Endpoint=sb://orders.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey&#61;"+g.s(b64, 43)+"="))
	add("aws-access-key-id", "evasion-html-everything", memo("Escaped", htmlEscapeAll(akia())))

	// String escapes: a pasted config or log.
	add("github-token", "evasion-json-newline", memo("Log line", `{"level":"debug","msg":"env dump\n`+ghp("ghp_")+`"}`))
	add("aws-access-key-id", "evasion-json-tab", memo("Config dump", `{"creds":"\t`+akia()+`"}`))
	add("github-token", "evasion-json-unicode", memo("JSON", `{"token":"ghp\u005f`+g.s(alnum, 36)+`"}`))
	add("slack-webhook", "evasion-json-slashes", memo("Webhook JSON", `{"url":"https:\/\/hooks.slack.com\/services\/T`+g.s(upperN, 8)+`\/B`+g.s(upperN, 10)+`\/`+g.s(alnum, 24)+`"}`))
	add("gcp-service-account", "evasion-json-in-a-string", memo("Secret manager dump", `"payload": "{\"type\": \"service_account\", \"project_id\": \"shop\", \"private_key\": \"-----BEGIN PRIVATE KEY-----\\n`+g.s(b64, 64)+`\\n-----END PRIVATE KEY-----\\n\"}"`))
	add("generic-secret", "evasion-log-escape", memo("Startup log", `msg="config loaded\npassword=`+pw()+`" level=debug`))
	add("npm-token", "evasion-python-escape", memo("Python", `NPM = "\x6epm_`+g.s(alnum, 36)+`"`))

	// A token glued to a word.
	add("github-token", "glued-letter", memo("Paste", "tokenghp_"+g.s(alnum, 30)+"7"+g.s(alnum, 5)))
	add("aws-access-key-id", "glued-underscore", memo("Env", "KEY_"+"AKIA"+g.s("234567", 2)+g.s(base32, 14)))
	add("stripe-live-key", "glued-word", memo("Stripe", "stripekeysk_live_"+g.s(alnum, 20)+g.digits(4)))
	add("openai-api-key", "glued-project-key", memo("OpenAI", "openai_sk-proj-"+g.s(b64url, 74)))
	add("anthropic-api-key", "glued-letter", memo("Claude", "keysk-ant-api03-"+g.s(b64url, 93)+"AA"))
	add("jwt", "glued-word", memo("Auth header", "Authorization=Bearer"+g.jwt()))

	// Chosen passwords: low entropy, four character classes.
	add("generic-secret", "chosen-password", memo("Router", "db_password: Hunter2Secret!x9\n"))
	add("generic-secret", "chosen-password-chinese", memo("测试账号", "测试账号的密码是Summer2024!Beach，仅限测试环境。"))
	add("generic-secret", "password-before-han", memo("数据库", "数据库密码："+pw()+"仅限测试环境使用"))
	return fs
}

func moreNegatives(r *rand.Rand) []txtar.File {
	g := gen{r}
	var fs []txtar.File
	add := func(kind, name, data string) { fs = append(fs, file(kind+"/"+name, data)) }

	// Chinese prose about passwords, tokens, keys and policies.
	zh := []string{
		"用户密码：必须至少包含12个字符，并且定期更换。",
		"口令：每90天更换一次",
		"密码策略：长度不少于12位，需包含大写字母、小写字母、数字和特殊字符。",
		"管理员密码：由运维同事通过1Password共享，不要写在文档里。",
		"数据库密码：存放在Vault的secret/db路径下，应用启动时读取。",
		"API密钥：在控制台的安全设置页面生成，每个环境一把。",
		"访问令牌：有效期24小时，过期后用刷新令牌换取。",
		"刷新令牌为一次性使用，换取新令牌后立即失效。",
		"私钥：只保存在HSM中，任何人都不能导出。",
		"密钥轮换：每季度一次，旧密钥保留7天用于解密历史数据。",
		"秘钥为AES256位密钥，由KMS统一托管。",
		"密钥是32字节随机数，存放在密钥管理服务中。",
		"口令为8到16位字母数字组合，不允许与用户名相同。",
		"令牌：过期后需要重新登录获取新的令牌。",
		"密码错误5次后账号锁定30分钟，解锁需要联系管理员。",
		"重置密码的链接15分钟内有效，只能使用一次。",
		"令牌存储在HttpOnly的Cookie里，前端脚本读不到。",
		"禁止在代码仓库、聊天记录和工单里粘贴密码或密钥。",
		"生产环境的密钥只有值班负责人可以查看，查看会留审计日志。",
		"密码哈希使用bcrypt，成本因子为12，迁移旧的MD5哈希要在登录时完成。",
		"口令复杂度：至少包含三类字符，不能包含连续3个相同字符。",
		"新员工的初始密码由系统随机生成，首次登录必须修改。",
		"服务之间调用使用mTLS，不再使用共享密钥。",
		"CI里的部署令牌改为OIDC短期令牌，有效期1小时。",
		"密钥泄露应急流程：先吊销，再轮换，最后排查影响范围。",
		"令牌权限遵循最小权限原则，只授予仓库读取权限。",
		"SSH私钥必须设置口令，并使用ed25519算法生成。",
		"第三方接口的签名密钥每年更换一次，更换前两周通知对方。",
		"默认密码为空，首次启动时由安装向导设置。",
		"密码长度上限为64位，超过部分会被截断，这是已知问题。",
		"令牌格式：以ghp_开头，后面跟36位字母和数字。",
		"AccessKey：请在RAM控制台创建子账号后生成，不要用主账号的。",
		"SecretKey：只在创建时显示一次，务必保存到密码管理器。",
		"双因素认证：管理员账号必须开启，支持TOTP和硬件密钥。",
		"加密密钥与数据分开存放，备份文件也要用独立密钥加密。",
		"token过期时间从2小时改为30分钟，刷新令牌延长到14天。",
		"口令：与域账号同步，修改域密码后10分钟内生效。",
		"临时密钥的有效期可以配置为15分钟到12小时。",
		"日志里的token字段统一脱敏为前4位加星号。",
		"客户端密钥（client_secret）不能下发到移动端App里。",
		"口令：至少12位；密钥：由KMS生成；令牌：24小时过期。",
		"密码 = 用户自己设置的，客服不能代为设置。",
		"密钥长度：RSA至少3072位，椭圆曲线使用P-256。",
		"API令牌：每个项目最多创建5个，超过需要走审批。",
		"密码：必须包含至少1个数字和1个大写字母，例如不能全是小写。",
		"数据库连接密码为环境变量DB_PASSWORD的值，代码里不写死。",
	}
	for i, s := range zh {
		add("zh-prose", fmt.Sprintf("policy-%02d", i+1), memo("安全规范", s+"\n"))
	}

	// English policy prose.
	en := []string{
		"Password: must be at least 12 characters and rotated every 90 days.",
		"Token: expires after 24 hours; refresh it with the refresh token.",
		"API key: one per environment, created in the console under Security.",
		"Secret: stored in Vault at secret/data/shop; never in the repository.",
		"The password reset link is valid for 15 minutes and can be used once.",
		"Passwords are hashed with bcrypt (cost 12); legacy MD5 hashes migrate on login.",
		"Access tokens carry the scopes repo:read and packages:read only.",
	}
	for i, s := range en {
		add("en-prose", fmt.Sprintf("policy-%02d", i+1), memo("Security policy", s+"\n"))
	}

	// Text that normalisation changes and that holds no secret.
	add("normalised", "emoji-zwj", memo("Team", "Team 👨\u200d👩\u200d👧 ships on Fridays ❤\ufe0f; token budget 8000."))
	add("normalised", "html-entities", memo("Docs export", "<p>Use &lt;token&gt; as the header value; AT&amp;T&#39;s API &amp; ours differ.</p>"))
	add("normalised", "json-log", memo("Log", `{"level":"info","msg":"login ok\nuser=alice\tattempts=3","path":"\/api\/v1\/login"}`))
	add("normalised", "windows-paths", memo("Paths", `Config lives in C:\new\token\x64\secrets.json and \\server\share\rotate.ps1.`))
	add("normalised", "cyrillic-prose", memo("Русский", "Пароль должен содержать не менее 12 символов; токен истекает через 24 часа."))
	add("normalised", "greek-prose", memo("Ελληνικά", "Ο κωδικός πρόσβασης αλλάζει κάθε 90 ημέρες."))
	add("normalised", "math", memo("Formula", "𝑥² + 𝑦² = 𝑧², with ① and ② as steps; ｆｕｌｌ ｗｉｄｔｈ text."))
	add("normalised", "japanese", memo("日本語", "パスワード：１２文字以上、９０日ごとに変更してください。"))
	add("normalised", "full-width-example", memo("格式说明", "令牌格式：ｇｈｐ＿ 开头，后面跟 36 位字母和数字。"))

	// Prefixes inside identifiers: glued, without random material.
	add("glued", "identifiers", memo("Code", "task_live_dashboardViewNotifications, risk-Assessment-Final-Report-Version-Draft, desk-RefactorTheBookingFlow"))
	add("glued", "asia", memo("Regions", "MALAYSIA_FAILOVER_REGION and asiaPacificRunbook are config names."))
	add("glued", "sk-words", memo("Branches", "whisk-the-eggs-before-adding-flour-and-sugar-slowly is a branch."))
	add("glued", "npm-script", memo("npm", "npm_config_registry and npm_package_version come from npm."))

	// Chosen values that are not passwords.
	add("value", "password-words", memo("Defaults", "password: correct horse battery staple (the comic, not ours)"))
	add("value", "token-type", memo("OAuth", "token_type: Bearer\nexpires_in: 3600\n"))
	add("value", "secret-ref", memo("K8s", "secretName: tls-"+g.s("abcdefghijklmnopqrstuvwxyz", 8)+"\nsecret: shop-prod-db-credentials\n"))
	return fs
}
