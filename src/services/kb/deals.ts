/**
 * Public AI content-licensing deals (and the price signals next to them) that the revenue estimate
 * (src/services/analyze/revenue.ts) and docs/jurisdictions-and-revenue.md rely on. A revenue result
 * names its deals by `basis.deal_ids`; this table says who agreed to what, when, at which public
 * price, and where that was reported, so every rate can be checked against its source.
 *
 * Most deals are confidential: the figures are as reported by the press (or as filed in court), not
 * confirmed contract terms. The ids are stable (results quote them); ids without a row here are
 * deals the library does not use.
 */

/** What kind of price signal a row is. */
export type DealKind =
  /** A licence between named parties. */
  | 'licence'
  /** A marketplace's published or reported price list; no single counterparty. */
  | 'price_quote'
  /** A court-approved settlement: a price of past use, not a licence (a sanity check only). */
  | 'settlement';

/** Where a fact of a deal was published. */
export interface DealSource {
  /** Publisher, outlet or court. */
  readonly by: string;
  /** The headline, or a description where the headline is not at hand. */
  readonly title: string;
  /** ISO date (day or month precision) of the publication. */
  readonly date: string;
  readonly url?: string;
}

/** One row of the table. */
export interface LicensingDeal {
  /** Stable id, quoted by `estimated_revenue.basis.deal_ids`. */
  readonly id: number;
  readonly kind: DealKind;
  readonly licensor: string;
  readonly licensee: string;
  /** ISO date (day or month precision) of the announcement or the first report. */
  readonly date: string;
  /** What was licensed. */
  readonly licensed: string;
  /** The public price terms, as reported. */
  readonly terms: string;
  /** How this library uses the row. */
  readonly used_for: string;
  readonly sources: readonly DealSource[];
}

/**
 * Id of the HarperCollins book licence, the source of the per-title book rate.
 * @example
 * estimateRevenue('book', 'metadata', 120_000, providers).basis.deal_ids // [DEAL_HARPERCOLLINS] = [9]
 */
export const DEAL_HARPERCOLLINS = 9;
/**
 * Id of the Defined.ai price list, the source of the per-word text rate.
 * @example
 * estimateRevenue('article', 'length', 900, providers).basis.deal_ids // [DEAL_DEFINED_AI] = [17]
 */
export const DEAL_DEFINED_AI = 17;

/**
 * The deals, by id.
 * @example
 * DEALS.find((d) => d.id === 9)?.terms // '$5,000 per title for 3 years, split 50/50 …'
 */
export const DEALS: readonly LicensingDeal[] = [
  {
    id: 1,
    kind: 'licence',
    licensor: 'Reddit',
    licensee: 'Google',
    date: '2024-02-22',
    licensed: "real-time access to Reddit's Data API and its content, for training and display",
    terms: 'about $60 million per year (sources quoted by Reuters; the companies gave no figure)',
    used_for: 'docs: news and forum deals are lump sums per licensor and year, so they give no per-work rate',
    sources: [
      {
        by: 'Google',
        title: 'An expanded partnership with Reddit',
        date: '2024-02-22',
        url: 'https://blog.google/inside-google/company-announcements/expanded-reddit-partnership/',
      },
      {
        by: 'Reuters',
        title: 'Reddit in AI content licensing deal with Google, sources say',
        date: '2024-02-22',
        url: 'https://www.reuters.com/technology/reddit-ai-content-licensing-deal-with-google-sources-say-2024-02-22/',
      },
    ],
  },
  {
    id: 3,
    kind: 'licence',
    licensor: "News Corp (The Wall Street Journal, Barron's, MarketWatch, New York Post, The Times, …)",
    licensee: 'OpenAI',
    date: '2024-05-22',
    licensed: 'current and archived news content, for training and for display in answers',
    terms: 'more than $250 million over five years, in cash and credits (as reported by The Wall Street Journal)',
    used_for: 'docs: news and forum deals are lump sums per licensor and year, so they give no per-work rate',
    sources: [
      {
        by: 'News Corp',
        title: 'News Corp and OpenAI Sign Landmark Multi-Year Global Partnership',
        date: '2024-05-22',
        url: 'https://newscorp.com/2024/05/22/news-corp-and-openai-sign-landmark-multi-year-global-partnership/',
      },
      {
        by: 'The Wall Street Journal',
        title: 'OpenAI, WSJ Owner News Corp Strike Content Deal Valued at Over $250 Million',
        date: '2024-05-22',
        url: 'https://www.wsj.com/business/media/openai-news-corp-strike-deal-9c2f5481',
      },
    ],
  },
  {
    id: DEAL_HARPERCOLLINS,
    kind: 'licence',
    licensor: 'HarperCollins',
    licensee: 'Microsoft (reported by Bloomberg; HarperCollins did not name the licensee)',
    date: '2024-11-18',
    licensed:
      'select nonfiction backlist titles for AI training; author opt-in; output cap of "no more than 200 ' +
      'consecutive words and/or five percent of a book\'s text"; no training on pirated copies',
    terms:
      '$5,000 per title for 3 years, split 50/50: $2,500 to the author, $2,500 to the publisher, not charged ' +
      'against royalties or advances',
    used_for: 'the book rate: $2,500 (author share) / $3,750 (midpoint) / $5,000 (gross) per title, 36 months',
    sources: [
      {
        by: 'Publishers Weekly',
        title: 'Agents, Authors Question HarperCollins AI Deal',
        date: '2024-11-25',
        url: 'https://www.publishersweekly.com/pw/by-topic/industry-news/publisher-news/article/96533-agents-authors-question-harpercollins-ai-deal.html',
      },
      {
        by: '404 Media',
        title: "HarperCollins Confirms It Has a Deal to Sell Authors' Work to AI Company",
        date: '2024-11-18',
        url: 'https://www.404media.co/harpercollins-ai-deal/',
      },
      {
        by: 'Bloomberg',
        title: 'report naming Microsoft as the licensee (as cited by Publishers Weekly)',
        date: '2024-11',
      },
    ],
  },
  {
    id: DEAL_DEFINED_AI,
    kind: 'price_quote',
    licensor: 'Defined.ai (data marketplace)',
    licensee: 'buyers reported to include Google, Meta, Apple, Amazon and Microsoft',
    date: '2024-04-05',
    licensed: 'training data sold through the marketplace: text, images, video',
    terms: '$0.001 per word of text; $1–$2 per image; $2–$4 per short video; $100–$300 per hour of longer film',
    used_for: 'the text rate: $0.001 per word, one-off, spread over 36 months (`low_confidence_rate`)',
    sources: [
      {
        by: 'Reuters (Katie Paul, Anna Tong)',
        title: "Inside Big Tech's underground race to buy AI training data",
        date: '2024-04-05',
        url: 'https://www.reuters.com/technology/inside-big-techs-underground-race-buy-ai-training-data-2024-04-05/',
      },
    ],
  },
  {
    id: 18,
    kind: 'settlement',
    licensor: 'authors and publishers of the certified class (Bartz v. Anthropic)',
    licensee: 'Anthropic',
    date: '2025-09-25',
    licensed:
      'release of claims for past acquisition and training on ≈ 482,000–500,000 books from shadow ' +
      'libraries; not a licence for outputs or future works',
    terms: '$1.5 billion, ≈ $3,000 per work; preliminarily approved 25 Sep 2025',
    used_for: 'a sanity check of the book band ($3,000 falls inside $2,500–$5,000); never an input of the estimate',
    sources: [
      {
        by: 'U.S. District Court, N.D. Cal.',
        title: 'Bartz v. Anthropic PBC, No. 3:24-cv-05417-WHA, docket (settlement and preliminary approval)',
        date: '2025-09-25',
        url: 'https://www.courtlistener.com/docket/69058235/bartz-v-anthropic-pbc/',
      },
    ],
  },
];
