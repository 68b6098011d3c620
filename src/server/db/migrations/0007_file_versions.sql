CREATE TABLE "file_versions" (
	"file_id" text NOT NULL,
	"version" integer NOT NULL,
	"storage_key" text NOT NULL,
	"content_type" text NOT NULL,
	"file_size" bigint NOT NULL,
	"upload_date" timestamp with time zone NOT NULL,
	CONSTRAINT "file_versions_file_id_version_pk" PRIMARY KEY("file_id","version"),
	CONSTRAINT "file_versions_storage_key_unique" UNIQUE("storage_key")
);
--> statement-breakpoint
ALTER TABLE "files" ADD COLUMN "version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "file_versions" ADD CONSTRAINT "file_versions_file_id_files_id_fk" FOREIGN KEY ("file_id") REFERENCES "public"."files"("id") ON DELETE cascade ON UPDATE no action;