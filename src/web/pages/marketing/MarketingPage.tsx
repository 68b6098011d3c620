// One layout for the three static marketing pages: hero, feature sections, a how-it-works
// list, honest limits, and the call to action back to /.
import { Link } from 'react-router';
import { TopNav } from '../../ui/TopNav.tsx';

export interface MarketingContent {
  eyebrow: string;
  title: string;
  lead: string;
  sections: Array<{ heading: string; body: string; points: string[] }>;
  steps: string[];
  callToAction: string;
}

export function MarketingPage({ content }: { content: MarketingContent }) {
  return (
    <div className="min-h-screen bg-gray-950">
      <TopNav />
      <main className="mx-auto max-w-5xl px-6 py-12">
        <p className="text-sm font-semibold uppercase tracking-wider text-indigo-400">{content.eyebrow}</p>
        <h1 className="mt-2 text-4xl font-bold leading-tight text-white md:text-5xl">{content.title}</h1>
        <p className="mt-5 max-w-3xl text-lg text-gray-300">{content.lead}</p>
        <Link
          to="/"
          className="mt-8 inline-block rounded-lg bg-indigo-600 px-6 py-3 font-semibold text-white hover:bg-indigo-500"
        >
          {content.callToAction}
        </Link>

        <div className="mt-14 grid gap-6 md:grid-cols-2">
          {content.sections.map((section) => (
            <section key={section.heading} className="rounded-xl border border-gray-800 bg-gray-900 p-6">
              <h2 className="text-xl font-semibold text-white">{section.heading}</h2>
              <p className="mt-2 text-gray-300">{section.body}</p>
              <ul className="mt-4 list-disc space-y-1 pl-5 text-gray-400">
                {section.points.map((point) => (
                  <li key={point}>{point}</li>
                ))}
              </ul>
            </section>
          ))}
        </div>

        <section className="mt-14">
          <h2 className="text-2xl font-semibold text-white">How it works</h2>
          <ol className="mt-4 list-decimal space-y-2 pl-6 text-gray-300">
            {content.steps.map((step) => (
              <li key={step}>{step}</li>
            ))}
          </ol>
        </section>

        <section className="mt-14 rounded-xl border border-indigo-900 bg-indigo-950/40 p-8 text-center">
          <h2 className="text-2xl font-semibold text-white">Ready to see the odds for yourself?</h2>
          <p className="mt-2 text-gray-300">Create an account, pick a plan, and open the dashboard in minutes.</p>
          <Link
            to="/"
            className="mt-6 inline-block rounded-lg bg-indigo-600 px-6 py-3 font-semibold text-white hover:bg-indigo-500"
          >
            {content.callToAction}
          </Link>
          <p className="mt-6 text-xs text-gray-400">
            Trading involves substantial risk of loss. Nothing on this site is financial advice; odds are measured on
            past data and do not guarantee future results.
          </p>
        </section>
      </main>
    </div>
  );
}
