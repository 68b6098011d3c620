// The cookies a test client keeps, from Set-Cookie lines: a cookie set empty or with
// Max-Age=0 is forgotten, as a browser would.
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  get size(): number {
    return this.cookies.size;
  }

  /** The Cookie request header for everything kept. */
  get header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  clear(): void {
    this.cookies.clear();
  }

  receive(setCookieLines: readonly string[]): void {
    for (const line of setCookieLines) {
      const [pair, ...attributes] = line.split(';');
      const [name, ...rest] = pair!.split('=');
      const value = rest.join('=');
      if (value === '' || attributes.some((attribute) => /max-age=0/i.test(attribute.trim())))
        this.cookies.delete(name!.trim());
      else this.cookies.set(name!.trim(), value);
    }
  }
}
