CREATE TABLE "forecasts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "forecasts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"dedup_key" text NOT NULL,
	"symbol" text NOT NULL,
	"asset_class" text NOT NULL,
	"timeframe" text NOT NULL,
	"signal" text NOT NULL,
	"direction" text NOT NULL,
	"stated" double precision NOT NULL,
	"interval_low" double precision,
	"interval_high" double precision,
	"raw_frequency" double precision,
	"horizon_bars" integer NOT NULL,
	"bar_time" timestamp with time zone NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"base_rate" double precision NOT NULL,
	"sample_size" integer NOT NULL,
	"source" text NOT NULL,
	"origin" text NOT NULL,
	"entry_close" double precision NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"rose" boolean,
	"exit_close" double precision,
	"resolved_at" timestamp with time zone,
	"note" text
);
--> statement-breakpoint
CREATE UNIQUE INDEX "forecasts_dedup_key_idx" ON "forecasts" USING btree ("dedup_key");--> statement-breakpoint
CREATE INDEX "forecasts_status_due_idx" ON "forecasts" USING btree ("status","due_at");--> statement-breakpoint
CREATE INDEX "forecasts_score_idx" ON "forecasts" USING btree ("source","status","timeframe","signal","bar_time");--> statement-breakpoint
CREATE INDEX "forecasts_symbol_idx" ON "forecasts" USING btree ("symbol","bar_time");