CREATE TABLE "prompts" (
	"id" text PRIMARY KEY NOT NULL,
	"category" text NOT NULL,
	"prompt" text NOT NULL,
	"uses_market_context" boolean DEFAULT true NOT NULL,
	"sort_order" integer DEFAULT 0 NOT NULL,
	"active" boolean DEFAULT true NOT NULL
);
--> statement-breakpoint
CREATE INDEX "prompts_category_idx" ON "prompts" USING btree ("category","sort_order");