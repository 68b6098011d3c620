// The three marketing routes of docs/SPEC.md section 2.
import { MarketingPage } from './MarketingPage.tsx';
import { aiTradingIntelligence, cryptoAnalyticsAi, futuresMicroFuturesAi } from './content.ts';

export function AiTradingIntelligencePage() {
  return <MarketingPage content={aiTradingIntelligence} />;
}

export function CryptoAnalyticsAiPage() {
  return <MarketingPage content={cryptoAnalyticsAi} />;
}

export function FuturesMicroFuturesAiPage() {
  return <MarketingPage content={futuresMicroFuturesAi} />;
}
