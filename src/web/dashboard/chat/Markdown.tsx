// Assistant answers as Markdown (GitHub tables, lists, emphasis), rendered safely: raw HTML in
// the text is never rendered (react-markdown escapes it; no rehype-raw), unsafe link schemes
// are dropped by react-markdown's default URL filter, and links open in a new tab.
import ReactMarkdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';

const components: Components = {
  h1: ({ children }) => <h3 className="mb-2 mt-3 text-base font-bold text-white first:mt-0">{children}</h3>,
  h2: ({ children }) => <h3 className="mb-2 mt-3 text-base font-bold text-white first:mt-0">{children}</h3>,
  h3: ({ children }) => <h4 className="mb-1 mt-3 text-sm font-bold text-white first:mt-0">{children}</h4>,
  h4: ({ children }) => <h5 className="mb-1 mt-2 text-sm font-semibold text-gray-200 first:mt-0">{children}</h5>,
  p: ({ children }) => <p className="my-1.5 leading-relaxed">{children}</p>,
  ul: ({ children }) => <ul className="my-1.5 list-disc space-y-0.5 pl-5">{children}</ul>,
  ol: ({ children }) => <ol className="my-1.5 list-decimal space-y-0.5 pl-5">{children}</ol>,
  blockquote: ({ children }) => (
    <blockquote className="my-2 border-l-2 border-amber-400/70 bg-amber-400/5 py-0.5 pl-3 text-amber-100">
      {children}
    </blockquote>
  ),
  a: ({ children, href }) => (
    <a
      href={href}
      target="_blank"
      rel="noopener noreferrer"
      className="text-indigo-300 underline hover:text-indigo-200"
    >
      {children}
    </a>
  ),
  code: ({ children }) => (
    <code className="rounded bg-gray-900 px-1 py-0.5 text-[0.85em] text-emerald-200">{children}</code>
  ),
  pre: ({ children }) => <pre className="my-2 overflow-x-auto rounded bg-gray-900 p-2 text-xs">{children}</pre>,
  table: ({ children }) => (
    <div className="my-2 overflow-x-auto">
      {/* Cells wrap at spaces only: a number or word is never split across lines. */}
      <table className="w-full border-collapse text-xs [overflow-wrap:normal]">{children}</table>
    </div>
  ),
  th: ({ children }) => (
    <th className="border-b border-gray-600 px-2 py-1 text-left font-semibold text-gray-300">{children}</th>
  ),
  td: ({ children }) => <td className="border-b border-gray-700/60 px-2 py-1 align-top">{children}</td>,
  hr: () => <hr className="my-3 border-gray-700" />,
};

export function Markdown({ text }: { text: string }) {
  return (
    <div className="text-sm text-gray-100 [overflow-wrap:anywhere]">
      <ReactMarkdown remarkPlugins={[remarkGfm]} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
