/**
 * Country names in the three console languages, keyed by ISO 3166-1 alpha-2 code. Both the
 * Wi-Fi country catalogue and the phone country table read their names from here, so the
 * console never spells a country name itself.
 */
export interface CountryNames {
  /** English name. */
  name: string;
  /** Simplified Chinese name. */
  nameZhCN: string;
  /** Traditional Chinese name. */
  nameZhTW: string;
}

export const COUNTRY_NAMES = {
  // East and South-East Asia
  CN: { name: 'China', nameZhCN: '中国', nameZhTW: '中國' },
  HK: { name: 'Hong Kong', nameZhCN: '中国香港', nameZhTW: '香港' },
  MO: { name: 'Macao', nameZhCN: '中国澳门', nameZhTW: '澳門' },
  TW: { name: 'Taiwan', nameZhCN: '中国台湾', nameZhTW: '台灣' },
  JP: { name: 'Japan', nameZhCN: '日本', nameZhTW: '日本' },
  KR: { name: 'South Korea', nameZhCN: '韩国', nameZhTW: '韓國' },
  SG: { name: 'Singapore', nameZhCN: '新加坡', nameZhTW: '新加坡' },
  MY: { name: 'Malaysia', nameZhCN: '马来西亚', nameZhTW: '馬來西亞' },
  TH: { name: 'Thailand', nameZhCN: '泰国', nameZhTW: '泰國' },
  VN: { name: 'Vietnam', nameZhCN: '越南', nameZhTW: '越南' },
  PH: { name: 'Philippines', nameZhCN: '菲律宾', nameZhTW: '菲律賓' },
  ID: { name: 'Indonesia', nameZhCN: '印度尼西亚', nameZhTW: '印尼' },
  // South and Central Asia
  IN: { name: 'India', nameZhCN: '印度', nameZhTW: '印度' },
  PK: { name: 'Pakistan', nameZhCN: '巴基斯坦', nameZhTW: '巴基斯坦' },
  BD: { name: 'Bangladesh', nameZhCN: '孟加拉国', nameZhTW: '孟加拉' },
  LK: { name: 'Sri Lanka', nameZhCN: '斯里兰卡', nameZhTW: '斯里蘭卡' },
  NP: { name: 'Nepal', nameZhCN: '尼泊尔', nameZhTW: '尼泊爾' },
  KZ: { name: 'Kazakhstan', nameZhCN: '哈萨克斯坦', nameZhTW: '哈薩克' },
  // Oceania
  AU: { name: 'Australia', nameZhCN: '澳大利亚', nameZhTW: '澳洲' },
  NZ: { name: 'New Zealand', nameZhCN: '新西兰', nameZhTW: '紐西蘭' },
  // The Americas
  US: { name: 'United States', nameZhCN: '美国', nameZhTW: '美國' },
  CA: { name: 'Canada', nameZhCN: '加拿大', nameZhTW: '加拿大' },
  PR: { name: 'Puerto Rico', nameZhCN: '波多黎各', nameZhTW: '波多黎各' },
  MX: { name: 'Mexico', nameZhCN: '墨西哥', nameZhTW: '墨西哥' },
  DO: { name: 'Dominican Republic', nameZhCN: '多米尼加共和国', nameZhTW: '多明尼加' },
  PA: { name: 'Panama', nameZhCN: '巴拿马', nameZhTW: '巴拿馬' },
  NI: { name: 'Nicaragua', nameZhCN: '尼加拉瓜', nameZhTW: '尼加拉瓜' },
  GT: { name: 'Guatemala', nameZhCN: '危地马拉', nameZhTW: '瓜地馬拉' },
  CR: { name: 'Costa Rica', nameZhCN: '哥斯达黎加', nameZhTW: '哥斯大黎加' },
  CO: { name: 'Colombia', nameZhCN: '哥伦比亚', nameZhTW: '哥倫比亞' },
  EC: { name: 'Ecuador', nameZhCN: '厄瓜多尔', nameZhTW: '厄瓜多' },
  PE: { name: 'Peru', nameZhCN: '秘鲁', nameZhTW: '秘魯' },
  CL: { name: 'Chile', nameZhCN: '智利', nameZhTW: '智利' },
  AR: { name: 'Argentina', nameZhCN: '阿根廷', nameZhTW: '阿根廷' },
  BR: { name: 'Brazil', nameZhCN: '巴西', nameZhTW: '巴西' },
  UY: { name: 'Uruguay', nameZhCN: '乌拉圭', nameZhTW: '烏拉圭' },
  VE: { name: 'Venezuela', nameZhCN: '委内瑞拉', nameZhTW: '委內瑞拉' },
  // Europe
  GB: { name: 'United Kingdom', nameZhCN: '英国', nameZhTW: '英國' },
  IE: { name: 'Ireland', nameZhCN: '爱尔兰', nameZhTW: '愛爾蘭' },
  FR: { name: 'France', nameZhCN: '法国', nameZhTW: '法國' },
  DE: { name: 'Germany', nameZhCN: '德国', nameZhTW: '德國' },
  IT: { name: 'Italy', nameZhCN: '意大利', nameZhTW: '義大利' },
  ES: { name: 'Spain', nameZhCN: '西班牙', nameZhTW: '西班牙' },
  PT: { name: 'Portugal', nameZhCN: '葡萄牙', nameZhTW: '葡萄牙' },
  NL: { name: 'Netherlands', nameZhCN: '荷兰', nameZhTW: '荷蘭' },
  BE: { name: 'Belgium', nameZhCN: '比利时', nameZhTW: '比利時' },
  LU: { name: 'Luxembourg', nameZhCN: '卢森堡', nameZhTW: '盧森堡' },
  AT: { name: 'Austria', nameZhCN: '奥地利', nameZhTW: '奧地利' },
  CH: { name: 'Switzerland', nameZhCN: '瑞士', nameZhTW: '瑞士' },
  LI: { name: 'Liechtenstein', nameZhCN: '列支敦士登', nameZhTW: '列支敦斯登' },
  SE: { name: 'Sweden', nameZhCN: '瑞典', nameZhTW: '瑞典' },
  NO: { name: 'Norway', nameZhCN: '挪威', nameZhTW: '挪威' },
  DK: { name: 'Denmark', nameZhCN: '丹麦', nameZhTW: '丹麥' },
  FI: { name: 'Finland', nameZhCN: '芬兰', nameZhTW: '芬蘭' },
  IS: { name: 'Iceland', nameZhCN: '冰岛', nameZhTW: '冰島' },
  PL: { name: 'Poland', nameZhCN: '波兰', nameZhTW: '波蘭' },
  CZ: { name: 'Czech Republic', nameZhCN: '捷克', nameZhTW: '捷克' },
  SK: { name: 'Slovakia', nameZhCN: '斯洛伐克', nameZhTW: '斯洛伐克' },
  HU: { name: 'Hungary', nameZhCN: '匈牙利', nameZhTW: '匈牙利' },
  RO: { name: 'Romania', nameZhCN: '罗马尼亚', nameZhTW: '羅馬尼亞' },
  BG: { name: 'Bulgaria', nameZhCN: '保加利亚', nameZhTW: '保加利亞' },
  GR: { name: 'Greece', nameZhCN: '希腊', nameZhTW: '希臘' },
  HR: { name: 'Croatia', nameZhCN: '克罗地亚', nameZhTW: '克羅埃西亞' },
  SI: { name: 'Slovenia', nameZhCN: '斯洛文尼亚', nameZhTW: '斯洛維尼亞' },
  EE: { name: 'Estonia', nameZhCN: '爱沙尼亚', nameZhTW: '愛沙尼亞' },
  LV: { name: 'Latvia', nameZhCN: '拉脱维亚', nameZhTW: '拉脫維亞' },
  LT: { name: 'Lithuania', nameZhCN: '立陶宛', nameZhTW: '立陶宛' },
  CY: { name: 'Cyprus', nameZhCN: '塞浦路斯', nameZhTW: '賽普勒斯' },
  MT: { name: 'Malta', nameZhCN: '马耳他', nameZhTW: '馬爾他' },
  RS: { name: 'Serbia', nameZhCN: '塞尔维亚', nameZhTW: '塞爾維亞' },
  UA: { name: 'Ukraine', nameZhCN: '乌克兰', nameZhTW: '烏克蘭' },
  BY: { name: 'Belarus', nameZhCN: '白俄罗斯', nameZhTW: '白俄羅斯' },
  RU: { name: 'Russia', nameZhCN: '俄罗斯', nameZhTW: '俄羅斯' },
  TR: { name: 'Turkey', nameZhCN: '土耳其', nameZhTW: '土耳其' },
  // Middle East and Africa
  IL: { name: 'Israel', nameZhCN: '以色列', nameZhTW: '以色列' },
  SA: { name: 'Saudi Arabia', nameZhCN: '沙特阿拉伯', nameZhTW: '沙烏地阿拉伯' },
  AE: { name: 'United Arab Emirates', nameZhCN: '阿拉伯联合酋长国', nameZhTW: '阿拉伯聯合大公國' },
  QA: { name: 'Qatar', nameZhCN: '卡塔尔', nameZhTW: '卡達' },
  KW: { name: 'Kuwait', nameZhCN: '科威特', nameZhTW: '科威特' },
  BH: { name: 'Bahrain', nameZhCN: '巴林', nameZhTW: '巴林' },
  OM: { name: 'Oman', nameZhCN: '阿曼', nameZhTW: '阿曼' },
  JO: { name: 'Jordan', nameZhCN: '约旦', nameZhTW: '約旦' },
  IR: { name: 'Iran', nameZhCN: '伊朗', nameZhTW: '伊朗' },
  EG: { name: 'Egypt', nameZhCN: '埃及', nameZhTW: '埃及' },
  MA: { name: 'Morocco', nameZhCN: '摩洛哥', nameZhTW: '摩洛哥' },
  TN: { name: 'Tunisia', nameZhCN: '突尼斯', nameZhTW: '突尼西亞' },
  ZA: { name: 'South Africa', nameZhCN: '南非', nameZhTW: '南非' },
  NG: { name: 'Nigeria', nameZhCN: '尼日利亚', nameZhTW: '奈及利亞' },
  KE: { name: 'Kenya', nameZhCN: '肯尼亚', nameZhTW: '肯亞' },
} as const satisfies Record<string, CountryNames>;

/** A two-letter code that has names in this table. */
export type NamedCountryCode = keyof typeof COUNTRY_NAMES;

export function isNamedCountryCode(code: string): code is NamedCountryCode {
  return Object.hasOwn(COUNTRY_NAMES, code);
}

/**
 * The name to show for `names` in a console language (`zh-CN`, `zh-TW`, anything else is
 * English). Takes the language as a plain string so the schema package needs no i18n import.
 */
export function localizedCountryName(names: CountryNames, language: string): string {
  if (language === 'zh-CN') return names.nameZhCN;
  if (language === 'zh-TW') return names.nameZhTW;
  return names.name;
}
