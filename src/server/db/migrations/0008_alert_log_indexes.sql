DROP INDEX "alerts_timestamp_idx";--> statement-breakpoint
DROP INDEX "alerts_type_timestamp_idx";--> statement-breakpoint
DROP INDEX "alerts_ticker_timestamp_idx";--> statement-breakpoint
CREATE INDEX "alerts_timestamp_id_idx" ON "alerts" USING btree ("timestamp","id");--> statement-breakpoint
CREATE INDEX "alerts_type_timestamp_id_idx" ON "alerts" USING btree ("alert_type","timestamp","id");--> statement-breakpoint
CREATE INDEX "alerts_ticker_timestamp_id_idx" ON "alerts" USING btree ("ticker","timestamp","id");