// Deterministic generator of a realistic memory corpus (Markdown + YAML front matter) for the benchmarks.
// A support module of the bench scripts (imported by run, scale, memsearch, watch, forget, hooks, runtime): measures nothing itself.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** mulberry32: a tiny seeded PRNG, so every run generates the same corpus. */
export function prng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = (list) => list[Math.floor(next() * list.length)];
  const chance = (p) => next() < p;
  const sample = (list, n) => {
    const copy = [...list];
    const out = [];
    while (out.length < n && copy.length) out.push(copy.splice(Math.floor(next() * copy.length), 1)[0]);
    return out;
  };
  return { next, int, pick, chance, sample };
}

export const USERS = ['alice', 'bob', 'chen.wei', 'diana', 'emil', 'fatima', 'george', 'hana', 'ivan', 'li.na'];
const TYPE_WEIGHTS = [
  ['semantic', 0.35],
  ['episodic', 0.35],
  ['procedural', 0.15],
  ['working', 0.15],
];

// ---- English word lists -------------------------------------------------------------------------
const W = {
  name: [
    'Alice',
    'Bob',
    'Chen',
    'Diana',
    'Emil',
    'Fatima',
    'George',
    'Hana',
    'Ivan',
    'Lina',
    'Marco',
    'Nadia',
    'Oscar',
    'Priya',
    'Quentin',
    'Rosa',
    'Sven',
    'Tomoko',
  ],
  relation: ['sister', 'brother', 'manager', 'daughter', 'son', 'partner', 'landlord', 'dentist', 'co-founder', 'mentor'],
  drink: ['oat-milk flat white', 'green tea', 'black coffee', 'jasmine tea', 'sparkling water', 'matcha latte', 'espresso', 'rooibos'],
  meal: ['breakfast', 'lunch', 'dinner'],
  weekday: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'],
  month: ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'],
  project: ['billing', 'onboarding', 'search revamp', 'mobile app', 'data warehouse', 'payments', 'analytics', 'help center', 'recommendation', 'checkout'],
  component: ['auth', 'ingest', 'scheduler', 'notification', 'gateway', 'indexer', 'cache', 'export', 'reporting', 'webhook'],
  tool: ['Gradle', 'webpack', 'Bazel', 'cargo', 'pnpm', 'Maven', 'CMake', 'Poetry'],
  os: ['macOS', 'Windows', 'Ubuntu 22.04', 'Alpine', 'Fedora'],
  envvar: ['JAVA_HOME', 'NODE_OPTIONS', 'PYTHONPATH', 'CC', 'RUSTFLAGS', 'GOFLAGS'],
  value: ['the LTS path', '--max-old-space-size=4096', 'an empty string', 'clang', '-C target-cpu=native', 'the vendored toolchain'],
  city: ['Lisbon', 'Kyoto', 'Berlin', 'Montreal', 'Nairobi', 'Singapore', 'Buenos Aires', 'Oslo', 'Seoul', 'Porto', 'Chengdu', 'Istanbul'],
  place: ['bakery', 'ramen bar', 'bookshop', 'museum', 'jazz club', 'vegetarian restaurant', 'coffee roastery', 'night market'],
  landmark: ['old cathedral', 'river promenade', 'central station', 'harbour', 'botanical garden', 'castle hill', 'university campus'],
  command: ['make release', 'npm run deploy', 'kubectl apply -f deploy/', 'terraform apply', './scripts/ship.sh', 'helm upgrade --install app ./chart'],
  dashboard: ['Grafana', 'Datadog', 'status', 'error budget', 'latency', 'on-call'],
  allergen: ['peanuts', 'shellfish', 'gluten', 'sesame', 'lactose', 'kiwi'],
  team: ['platform', 'design', 'growth', 'infra', 'data', 'support', 'security', 'mobile'],
  amount: ['12,000', '45,500', '8,200', '150,000', '3,750', '27,000'],
  currency: ['EUR', 'USD', 'GBP', 'JPY', 'CNY'],
  thing: ['long meetings', 'cold calls', 'spicy food', 'early flights', 'open-plan offices', 'video calls after 6 pm', 'surprise parties'],
  activity: ['get a written summary', 'walk and talk', 'pair on the problem', 'take the train', 'work from the library', 'have a quiet dinner'],
  storage: ['S3 Glacier', 'the cold bucket', 'tape backup', 'the archive cluster', 'object storage'],
  cause: ['an expired TLS certificate', 'a full disk', 'a bad config push', 'a DNS change', 'a memory leak', 'a connection pool limit', 'clock skew'],
  language: ['Japanese', 'Portuguese', 'Mandarin', 'Spanish', 'German', 'Korean', 'Swahili'],
  app: ['flash cards', 'a tutor on video calls', 'podcasts', 'a grammar book', 'a language exchange partner'],
  file: ['config/app.yaml', 'the service logs', 'src/server/main.go', 'the migration scripts', 'the feature flags file', 'docker-compose.yml'],
  metric: ['p99 latency', 'error rate', 'queue depth', 'CPU saturation', 'cache hit ratio', 'GC pause'],
  category: ['running shoe', 'laptop', 'notebook', 'headphone', 'backpack', 'bike'],
  brand: ['Asics', 'ThinkPad', 'Moleskine', 'Sony', 'Osprey', 'Brompton', 'Leuchtturm'],
  size: ['M', 'L', '42', '14 inch', 'A5', 'medium'],
  hobby: ['bouldering', 'sourdough baking', 'chess', 'birdwatching', 'film photography', 'trail running', 'pottery'],
  topic: ['quarterly planning', 'the hiring pipeline', 'the API deprecation', 'the office move', 'vendor contracts', 'the incident review', 'the roadmap'],
  decision: ['postpone the launch', 'switch to weekly releases', 'drop the legacy endpoint', 'hire a contractor', 'freeze new features', 'split the service'],
};

const EN = [
  (r) => `${r.pick(W.name)} prefers ${r.pick(W.drink)} in the morning and usually skips ${r.pick(W.meal)} on ${r.pick(W.weekday)}s.`,
  (r) => `We agreed to move the ${r.pick(W.project)} deadline to ${r.pick(W.month)} ${r.int(1, 28)} because the ${r.pick(W.component)} migration slipped.`,
  (r) => `The ${r.pick(W.tool)} build fails on ${r.pick(W.os)} unless ${r.pick(W.envvar)} is set to ${r.pick(W.value)}.`,
  (r) => `During the trip to ${r.pick(W.city)}, ${r.pick(W.name)} recommended a small ${r.pick(W.place)} near the ${r.pick(W.landmark)}.`,
  (r) =>
    `To deploy ${r.pick(W.project)}, run \`${r.pick(W.command)}\` from the repository root, then watch the ${r.pick(W.dashboard)} dashboard for ${r.int(5, 30)} minutes.`,
  (r) => `${r.pick(W.name)}'s ${r.pick(W.relation)} is allergic to ${r.pick(W.allergen)}, so avoid it when booking dinners.`,
  (r) => `The ${r.pick(W.team)} team meets every ${r.pick(W.weekday)} at ${r.int(8, 17)}:${r.pick(['00', '15', '30', '45'])} in room ${r.int(100, 480)}.`,
  (r) => `The budget for ${r.pick(W.project)} in Q${r.int(1, 4)} is ${r.pick(W.amount)} ${r.pick(W.currency)}, approved by ${r.pick(W.name)}.`,
  (r) => `Remember that ${r.pick(W.name)} dislikes ${r.pick(W.thing)} and would rather ${r.pick(W.activity)}.`,
  (r) => `The ${r.pick(W.component)} service keeps ${r.int(7, 90)} days of logs; older entries are archived to ${r.pick(W.storage)}.`,
  (r) => `Last ${r.pick(W.weekday)} the ${r.pick(W.component)} outage lasted ${r.int(3, 240)} minutes and was traced to ${r.pick(W.cause)}.`,
  (r) => `${r.pick(W.name)} is learning ${r.pick(W.language)} and practises ${r.int(10, 60)} minutes a day with ${r.pick(W.app)}.`,
  (r) => `When debugging the ${r.pick(W.component)} service, look at ${r.pick(W.file)} first and then at the ${r.pick(W.metric)} metric.`,
  (r) => `The preferred ${r.pick(W.category)} for ${r.pick(W.name)} is a ${r.pick(W.brand)}, size ${r.pick(W.size)}.`,
  (r) =>
    `The flight to ${r.pick(W.city)} leaves at ${r.int(5, 22)}:${r.pick(['05', '20', '35', '50'])} from terminal ${r.int(1, 5)}; seat ${r.int(3, 40)}${r.pick(['A', 'C', 'D', 'F'])} was requested.`,
  (r) => `On weekends ${r.pick(W.name)} spends most mornings on ${r.pick(W.hobby)} and does not answer work messages.`,
  (r) => `In the meeting about ${r.pick(W.topic)} we decided to ${r.pick(W.decision)}; ${r.pick(W.name)} owns the follow-up.`,
  (r) => `${r.pick(W.name)} asked to be reminded about ${r.pick(W.topic)} ${r.int(2, 14)} days before the review.`,
  (r) => `The ${r.pick(W.metric)} of the ${r.pick(W.component)} service went from ${r.int(20, 90)} to ${r.int(100, 900)} after the ${r.pick(W.month)} release.`,
  (r) => `Ticket ${r.pick(['OPS', 'WEB', 'DATA', 'SEC'])}-${r.int(100, 9999)} tracks the ${r.pick(W.project)} regression reported by ${r.pick(W.name)}.`,
];

// ---- Chinese word lists -------------------------------------------------------------------------
const Z = {
  name: ['小王', '李娜', '陈伟', '张敏', '刘洋', '赵磊', '王芳', '孙杰'],
  time: ['早上', '中午', '下午', '晚上'],
  drink: ['绿茶', '美式咖啡', '豆浆', '乌龙茶', '热牛奶', '柠檬水'],
  project: ['支付系统', '搜索改版', '数据仓库', '移动应用', '客服平台', '推荐系统'],
  city: ['上海', '成都', '杭州', '北京', '深圳', '西安', '广州'],
  place: ['火锅店', '面馆', '书店', '茶馆', '咖啡馆', '小吃街'],
  component: ['网关', '缓存', '调度器', '日志服务', '消息队列', '数据库'],
  allergen: ['花生', '海鲜', '芒果', '牛奶'],
  weekday: ['一', '二', '三', '四', '五'],
  meeting: ['周会', '复盘会', '技术分享会', '项目评审'],
  lang: ['日语', '西班牙语', '德语', '法语', '英语口语'],
  hobby: ['跑步', '书法', '围棋', '摄影', '烘焙'],
};

const ZH = [
  (r) => `${r.pick(Z.name)}喜欢在${r.pick(Z.time)}喝${r.pick(Z.drink)}。`,
  (r) => `我们决定把${r.pick(Z.project)}的上线日期推迟到${r.int(1, 12)}月${r.int(1, 28)}日。`,
  (r) => `去${r.pick(Z.city)}出差时，${r.pick(Z.name)}推荐了一家很安静的${r.pick(Z.place)}。`,
  (r) => `部署之前一定要先检查${r.pick(Z.component)}的日志，确认没有报错。`,
  (r) => `${r.pick(Z.name)}对${r.pick(Z.allergen)}过敏，订餐的时候要特别注意。`,
  (r) => `每周${r.pick(Z.weekday)}下午${r.int(1, 5)}点开${r.pick(Z.meeting)}，会议室在${r.int(2, 18)}楼。`,
  (r) => `${r.pick(Z.component)}的超时时间设置为${r.int(2, 60)}秒，改动之前要通知值班同事。`,
  (r) => `${r.pick(Z.name)}正在学习${r.pick(Z.lang)}，每天练习${r.int(10, 60)}分钟。`,
  (r) => `上次${r.pick(Z.component)}故障持续了${r.int(5, 120)}分钟，原因是配置错误。`,
  (r) => `周末${r.pick(Z.name)}通常去${r.pick(Z.hobby)}，不回复工作消息。`,
  (r) => `${r.pick(Z.project)}第${r.int(1, 4)}季度的预算是${r.int(2, 90)}万元，已经批准。`,
];

const TAGS = [
  'work',
  'family',
  'travel',
  'food',
  'health',
  'deploy',
  'incident',
  'meeting',
  'preference',
  'learning',
  'finance',
  'hobby',
  'todo',
  'oncall',
  'shopping',
];
const HEADINGS = ['Context', 'Details', 'Follow-up', 'Decision', 'Open questions', 'Notes', 'Why it matters', '背景', '后续'];
const TITLES = (r) =>
  r.pick([
    `Notes on ${r.pick(W.project)}`,
    `Trip to ${r.pick(W.city)}`,
    `${r.pick(W.component)} runbook`,
    `About ${r.pick(W.name)}`,
    `Meeting: ${r.pick(W.topic)}`,
    `Preferences`,
    `Incident ${r.int(100, 999)}`,
    `${r.pick(Z.project)}记录`,
  ]);

function weightedType(r) {
  let x = r.next();
  for (const [t, w] of TYPE_WEIGHTS) {
    if ((x -= w) < 0) return t;
  }
  return 'semantic';
}

function paragraph(r, lang) {
  const n = r.int(2, 5);
  const parts = [];
  for (let i = 0; i < n; i++) {
    if (lang === 'zh') parts.push(r.pick(ZH)(r));
    else if (lang === 'mixed' && r.chance(0.3)) parts.push(r.pick(ZH)(r));
    else parts.push(r.pick(EN)(r));
  }
  return parts.join(lang === 'zh' ? '' : ' ');
}

function steps(r) {
  const n = r.int(3, 6);
  return Array.from({ length: n }, (_, i) => `${i + 1}. ${r.pick(EN)(r)}`).join('\n');
}

function isoBetween(r, startMs, endMs) {
  return new Date(startMs + Math.floor(r.next() * (endMs - startMs))).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** One memory: { path, text, meta, paragraphs, lang, headings }. */
function makeMemory(r, i) {
  const user = USERS[i % USERS.length];
  const type = weightedType(r);
  const lang = r.chance(0.12) ? 'zh' : r.chance(0.28) ? 'mixed' : 'en';
  const slug = r.pick(['note', 'pref', 'trip', 'deploy', 'meeting', 'incident', 'family', 'learning', 'budget', 'todo']);
  const id = `m-${String(i).padStart(6, '0')}-${slug}`;
  const created = isoBetween(r, Date.UTC(2024, 0, 1), Date.UTC(2025, 11, 1));
  const updated = r.chance(0.3) ? isoBetween(r, Date.parse(created), Date.UTC(2026, 0, 1)) : created;
  const importance = (r.int(1, 10) / 10).toFixed(1);
  const tags = r.sample(TAGS, r.int(1, 4));

  const blocks = [];
  let headings = 0;
  const paragraphs = r.int(1, 4);
  if (r.chance(0.3)) {
    blocks.push(`# ${TITLES(r)}`);
    headings++;
  }
  for (let p = 0; p < paragraphs; p++) {
    if (p > 0 && r.chance(0.2)) {
      blocks.push(`## ${r.pick(HEADINGS)}`);
      headings++;
    }
    blocks.push(type === 'procedural' && p === paragraphs - 1 && lang !== 'zh' ? steps(r) : paragraph(r, lang));
  }
  const front = [
    '---',
    `id: ${id}`,
    `user: ${user}`,
    `type: ${type}`,
    `importance: ${importance}`,
    'status: active',
    `created: ${created}`,
    `updated: ${updated}`,
    `tags: [${tags.join(', ')}]`,
    '---',
  ].join('\n');
  const body = blocks.join('\n\n');
  return { path: `${user}/${type}/${id}.md`, text: `${front}\n\n${body}\n`, user, type, lang, paragraphs, headings, bodyChars: body.length };
}

/** Writes `count` memory files under `root` and returns a description of the corpus. */
export async function generateCorpus(root, count, seed = 20260101) {
  const r = prng(seed);
  const files = [];
  for (let i = 0; i < count; i++) files.push(makeMemory(r, i));
  const dirs = new Set(files.map((f) => dirname(join(root, f.path))));
  for (const d of dirs) await mkdir(d, { recursive: true });
  // Plain writes: generated files are put straight on disk (no `mem add`, so no git commits happen).
  for (let i = 0; i < files.length; i += 64) {
    await Promise.all(files.slice(i, i + 64).map((f) => writeFile(join(root, f.path), f.text, 'utf8')));
  }
  const bytes = files.reduce((n, f) => n + Buffer.byteLength(f.text), 0);
  const count_ = (pred) => files.filter(pred).length;
  return {
    files,
    summary: {
      seed,
      files: files.length,
      users: new Set(files.map((f) => f.user)).size,
      bytes,
      avgFileBytes: Math.round(bytes / Math.max(1, files.length)),
      byType: Object.fromEntries(TYPE_WEIGHTS.map(([t]) => [t, count_((f) => f.type === t)])),
      byLanguage: { en: count_((f) => f.lang === 'en'), mixed: count_((f) => f.lang === 'mixed'), zh: count_((f) => f.lang === 'zh') },
      withHeadings: count_((f) => f.headings > 0),
      paragraphs: files.reduce((n, f) => n + f.paragraphs, 0),
    },
  };
}

/** Queries for the search benchmark: English and Chinese, phrased as an agent would ask. */
export const QUERIES = [
  'what does the user drink in the morning',
  'food allergies to avoid when booking dinner',
  'how do I deploy the billing service',
  'why did the build fail on macOS',
  'restaurant recommendation in Lisbon',
  'when is the weekly platform team meeting',
  'budget approved for payments this quarter',
  'outage caused by an expired TLS certificate',
  'which language is being learned and how often',
  'log retention and archive policy',
  'flight departure time and seat',
  'preferred running shoe size',
  'hobbies on weekends',
  'decision from the roadmap meeting',
  'deadline moved because migration slipped',
  'what to check first when debugging the gateway',
  'reminder before the incident review',
  'p99 latency regression after release',
  '部署之前要检查什么',
  '谁对海鲜过敏',
  '去成都出差推荐的餐厅',
  '支付系统的上线日期',
  '每天练习日语多久',
  '缓存 超时 设置',
];
