CREATE TABLE "alerts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "alerts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"ticker" text NOT NULL,
	"alert_type" text NOT NULL,
	"message" text NOT NULL,
	"timestamp" timestamp with time zone NOT NULL,
	"source" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "candles" (
	"product_id" text NOT NULL,
	"granularity" integer NOT NULL,
	"time" timestamp with time zone NOT NULL,
	"open" double precision NOT NULL,
	"high" double precision NOT NULL,
	"low" double precision NOT NULL,
	"close" double precision NOT NULL,
	"volume" double precision NOT NULL,
	"source" text NOT NULL,
	CONSTRAINT "candles_product_id_granularity_time_pk" PRIMARY KEY("product_id","granularity","time")
);
--> statement-breakpoint
CREATE UNIQUE INDEX "alerts_ticker_type_time_idx" ON "alerts" USING btree ("ticker","alert_type","timestamp");--> statement-breakpoint
CREATE INDEX "alerts_timestamp_idx" ON "alerts" USING btree ("timestamp");--> statement-breakpoint
CREATE INDEX "alerts_type_timestamp_idx" ON "alerts" USING btree ("alert_type","timestamp");--> statement-breakpoint
CREATE INDEX "alerts_ticker_timestamp_idx" ON "alerts" USING btree ("ticker","timestamp");