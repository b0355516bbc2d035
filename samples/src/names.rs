//! Word pools for plausible names and phrases. Everything here is invented for the sample;
//! combinations may resemble real names by accident only.

/// Chinese trade-name syllable pairs.
pub const ZH_BRANDS: &[&str] = &[
    "华晨", "东润", "恒信", "金桥", "中科", "瑞丰", "长盈", "新安", "天成", "海川", "博远", "汇通", "永泰", "鼎盛",
    "明德", "宏达", "嘉禾", "思远", "泰和", "青云", "远航", "正元", "德润", "锦程", "国瑞", "华亿", "星河", "安澜",
    "盛景", "晨光", "联创", "弘毅", "致远", "凯翔", "南湖", "北辰", "西岭", "东方", "沃达", "润禾",
];

/// A Chinese industry: name, short word used in company names, business segments.
#[derive(Debug, Clone, Copy)]
pub struct ZhIndustry {
    pub name: &'static str,
    pub word: &'static str,
    pub segments: [&'static str; 3],
}

/// Chinese industries of the sample.
pub const ZH_INDUSTRIES: &[ZhIndustry] = &[
    ZhIndustry { name: "汽车零部件", word: "汽配", segments: ["底盘系统", "车身内饰", "电子控制"] },
    ZhIndustry { name: "专用设备", word: "重工", segments: ["工程机械", "环保设备", "配件与服务"] },
    ZhIndustry { name: "消费电子", word: "电子", segments: ["精密结构件", "声学模组", "智能穿戴"] },
    ZhIndustry { name: "化学制药", word: "药业", segments: ["化学原料药", "制剂", "医药商业"] },
    ZhIndustry { name: "电力", word: "能源", segments: ["火电", "水电", "新能源发电"] },
    ZhIndustry { name: "白酒", word: "酒业", segments: ["高端酒", "中端酒", "其他酒类"] },
    ZhIndustry { name: "钢铁", word: "钢铁", segments: ["板材", "长材", "金属制品"] },
    ZhIndustry { name: "软件开发", word: "软件", segments: ["行业应用软件", "云服务", "系统集成"] },
    ZhIndustry { name: "半导体", word: "微电子", segments: ["芯片设计", "封装测试", "功率器件"] },
    ZhIndustry { name: "医疗器械", word: "医疗", segments: ["诊断试剂", "影像设备", "耗材"] },
    ZhIndustry { name: "食品加工", word: "食品", segments: ["速冻食品", "调味品", "休闲食品"] },
    ZhIndustry { name: "物流", word: "物流", segments: ["合同物流", "快递快运", "供应链服务"] },
];

/// Reasons management gives for revenue going up.
pub const ZH_DRIVERS_UP: &[&str] = &[
    "下游需求回暖，主要产品销量增长",
    "新建产能陆续投产并释放产量",
    "海外市场拓展取得成效，出口收入增加",
    "产品结构优化，高附加值产品占比提升",
    "新客户导入顺利，订单规模扩大",
    "产品价格上调，单位售价提高",
];

/// Reasons management gives for revenue going down.
pub const ZH_DRIVERS_DOWN: &[&str] = &[
    "行业竞争加剧，主要产品价格下降",
    "下游客户需求疲软，订单减少",
    "部分项目延期交付，收入确认推迟",
    "主动收缩低毛利业务",
    "原材料供应紧张导致产量下降",
    "出口市场受贸易摩擦影响",
];

/// Risks listed in Chinese reports: (name, sentence).
pub const ZH_RISKS: &[(&str, &str)] = &[
    ("原材料价格波动风险", "公司主要原材料价格受大宗商品行情影响较大，若价格大幅上涨将压缩毛利空间。"),
    ("汇率波动风险", "公司境外收入以美元结算，人民币汇率波动可能产生汇兑损失。"),
    ("应收账款回收风险", "随着业务规模扩大，应收账款余额较高，若客户经营恶化可能导致坏账。"),
    ("技术迭代风险", "行业技术更新较快，若公司研发进度不及预期，产品竞争力可能下降。"),
    ("市场竞争加剧风险", "行业新进入者增加，价格竞争激烈，可能影响公司市场份额。"),
    ("环保政策风险", "环保标准日趋严格，公司可能需要追加环保投入。"),
    ("核心人才流失风险", "公司对核心技术人员依赖程度较高，人才流失可能影响研发。"),
    ("客户集中度较高风险", "公司前五名客户销售占比较高，主要客户需求变化将对业绩产生较大影响。"),
    ("商誉减值风险", "公司因并购形成的商誉金额较大，若标的公司业绩不达预期将计提减值。"),
    ("产能消化风险", "募投项目达产后产能大幅增加，若市场开拓不及预期将面临产能闲置。"),
];

/// Chinese surnames for parties.
pub const ZH_SURNAMES: &[&str] = &[
    "王", "李", "张", "刘", "陈", "杨", "黄", "赵", "吴", "周", "徐", "孙", "马", "朱", "胡", "郭", "何", "林", "罗",
    "高",
];

/// (province abbreviation, city, district court names).
pub const ZH_COURTS: &[(&str, &str, &[&str])] = &[
    ("粤", "广州市", &["天河区", "越秀区", "海珠区", "白云区"]),
    ("鲁", "济南市", &["历下区", "市中区", "槐荫区"]),
    ("苏", "南京市", &["玄武区", "秦淮区", "鼓楼区"]),
    ("浙", "杭州市", &["西湖区", "拱墅区", "上城区"]),
    ("赣", "南昌市", &["东湖区", "西湖区", "青山湖区"]),
    ("川", "成都市", &["锦江区", "青羊区", "武侯区"]),
    ("京", "北京市", &["朝阳区", "海淀区", "东城区"]),
    ("沪", "上海市", &["浦东新区", "徐汇区", "静安区"]),
];

/// English name stems.
pub const EN_STEMS: &[&str] = &[
    "Northwind",
    "Bluestone",
    "Cedar Ridge",
    "Harborview",
    "Summit",
    "Ironwood",
    "Meridian",
    "Pioneer",
    "Silverline",
    "Redwood",
    "Granite Peak",
    "Lakeshore",
    "Keystone",
    "Evergreen",
    "Falcon",
    "Orion",
    "Atlas",
    "Beacon",
    "Crescent",
    "Prairie",
    "Copperfield",
    "Westbrook",
    "Brightwater",
    "Stonegate",
    "Tidewater",
    "Highland",
    "Sterling",
    "Maple Leaf",
];

/// An English industry bucket: bucket name, SIC codes with descriptions, name nouns.
#[derive(Debug, Clone, Copy)]
pub struct EnIndustry {
    pub bucket: &'static str,
    pub sic: &'static [(&'static str, &'static str)],
    pub nouns: &'static [&'static str],
    pub segments: [&'static str; 3],
}

/// English industry buckets.
pub const EN_INDUSTRIES: &[EnIndustry] = &[
    EnIndustry {
        bucket: "Manufacturing",
        sic: &[("3560", "General Industrial Machinery & Equipment"), ("3674", "Semiconductors & Related Devices")],
        nouns: &["Industries", "Manufacturing", "Semiconductor"],
        segments: ["Industrial Products", "Components", "Aftermarket Services"],
    },
    EnIndustry {
        bucket: "Services",
        sic: &[("7372", "Services-Prepackaged Software"), ("8742", "Services-Management Consulting Services")],
        nouns: &["Software", "Solutions", "Consulting"],
        segments: ["Subscriptions", "Professional Services", "Licenses"],
    },
    EnIndustry {
        bucket: "Finance_RealEstate",
        sic: &[("6798", "Real Estate Investment Trusts"), ("6022", "State Commercial Banks")],
        nouns: &["Realty", "Bancorp", "Financial"],
        segments: ["Rental Income", "Net Interest Income", "Fee Income"],
    },
    EnIndustry {
        bucket: "Transport_Utilities",
        sic: &[("4911", "Electric Services"), ("4400", "Water Transportation")],
        nouns: &["Energy", "Utilities", "Shipping"],
        segments: ["Regulated Operations", "Contracted Services", "Other Operations"],
    },
    EnIndustry {
        bucket: "Wholesale",
        sic: &[("5047", "Wholesale-Medical, Dental & Hospital Equipment"), ("5141", "Wholesale-Groceries")],
        nouns: &["Distribution", "Supply", "Wholesale"],
        segments: ["Distribution", "Logistics Services", "Specialty Products"],
    },
    EnIndustry {
        bucket: "Retail",
        sic: &[("5812", "Retail-Eating Places"), ("5331", "Retail-Variety Stores")],
        nouns: &["Stores", "Brands", "Restaurants"],
        segments: ["Stores", "E-commerce", "Franchise Fees"],
    },
];

/// English regions.
pub const EN_REGIONS: &[(&str, &[&str])] = &[
    ("Northeast", &["NY", "MA", "PA", "NJ"]),
    ("Midwest", &["IL", "OH", "MI", "MN"]),
    ("South", &["TX", "FL", "GA", "NC"]),
    ("West", &["CA", "WA", "CO", "AZ"]),
    ("International", &["E9", "A1", "K3"]),
];

/// Reasons in English MD&A for revenue going up.
pub const EN_DRIVERS_UP: &[&str] = &[
    "higher volumes from new customer wins",
    "pricing actions implemented during the year",
    "the contribution of an acquired business",
    "strong demand in our core end markets",
    "expansion of our subscription base",
];

/// Reasons in English MD&A for revenue going down.
pub const EN_DRIVERS_DOWN: &[&str] = &[
    "lower volumes as customers reduced inventory",
    "unfavorable foreign currency translation",
    "the divestiture of a non-core product line",
    "softer demand in our industrial end markets",
    "price concessions on renewed contracts",
];

/// English risk topics: (topic, verbatim sentence used in Item 1A).
pub const EN_RISKS: &[(&str, &str)] = &[
    (
        "supply chain disruption",
        "Disruptions at a limited number of suppliers could delay shipments and increase our costs.",
    ),
    ("cybersecurity", "A breach of our information systems could expose confidential data and interrupt operations."),
    ("interest rates", "Rising interest rates would increase the cost of servicing our variable-rate debt."),
    (
        "climate-related regulation",
        "New climate-related disclosure and emissions rules may require significant compliance spending.",
    ),
    (
        "customer concentration",
        "Our largest customers account for a significant share of revenue and may reduce purchases.",
    ),
    ("foreign currency", "Fluctuations in exchange rates affect the translated value of our international results."),
    ("labor availability", "Shortages of skilled labor could constrain our ability to meet customer demand."),
    ("commodity prices", "Volatile prices for steel, resin and energy can compress our gross margin."),
    ("litigation", "Pending and future legal proceedings could result in substantial damages or settlements."),
    ("goodwill impairment", "A sustained decline in our market value could require an impairment of goodwill."),
];

/// English given names and surnames for parties and authors.
pub const EN_GIVEN: &[&str] = &[
    "James", "Maria", "Robert", "Linda", "Michael", "Patricia", "David", "Jennifer", "Daniel", "Susan", "Kevin",
    "Angela", "Thomas", "Laura", "Carlos", "Mei", "Ahmed", "Priya", "Olga", "Samuel",
];

/// English surnames.
pub const EN_SURNAMES: &[&str] = &[
    "Smith",
    "Johnson",
    "Garcia",
    "Miller",
    "Davis",
    "Rodriguez",
    "Martinez",
    "Anderson",
    "Taylor",
    "Thomas",
    "Moore",
    "Jackson",
    "Lee",
    "Walker",
    "Hall",
    "Young",
    "King",
    "Wright",
    "Lopez",
    "Hill",
    "Nguyen",
    "Patel",
    "Kim",
    "Chen",
];
